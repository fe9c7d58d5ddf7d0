-- AlterTable
ALTER TABLE "emails" ADD COLUMN     "attempts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "event_id" TEXT,
ADD COLUMN     "kind" TEXT,
ADD COLUMN     "last_error" TEXT;

-- AlterTable
ALTER TABLE "payments" ADD COLUMN     "payment_method" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "emails_event_id_key" ON "emails"("event_id");

-- CreateIndex
CREATE INDEX "emails_status_created_at_idx" ON "emails"("status", "created_at");

-- CreateIndex
CREATE INDEX "payments_status_created_at_idx" ON "payments"("status", "created_at");

-- CreateIndex
CREATE INDEX "webhook_deliveries_endpoint_id_id_idx" ON "webhook_deliveries"("endpoint_id", "id");

-- CreateIndex
CREATE INDEX "webhook_deliveries_status_next_attempt_at_idx" ON "webhook_deliveries"("status", "next_attempt_at");


-- Hand-written: the outbox's fast path. NOTIFY is transactional: PostgreSQL delivers it when
-- the transaction that inserted events commits (never for a rollback), so the workers'
-- relay wakes within milliseconds of the commit instead of at its next poll. The payload
-- names the schema, so one listener can tell the live tables from the sandbox's.
CREATE FUNCTION "notify_outbox"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('svc_outbox', TG_TABLE_SCHEMA);
  RETURN NULL;
END;
$$;

CREATE TRIGGER "events_notify_outbox" AFTER INSERT ON "events"
  FOR EACH STATEMENT EXECUTE FUNCTION "notify_outbox"();

-- Hand-written: a booking is paid at most once. Two concurrent POST /payments for one booking
-- cannot both hold a processing or succeeded payment; the second is a CONFLICT.
CREATE UNIQUE INDEX "payments_one_live_per_booking" ON "payments"("booking_id") WHERE "status" IN ('processing', 'succeeded');
