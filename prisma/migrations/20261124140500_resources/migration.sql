-- Rooms and equipment (docs/api.md, Rooms and equipment): a company's resources, the ones a
-- service requires (every one of requiredResourceIds, and any one free resource of each of
-- requiredResourceKinds), and the holds bookings and class sessions keep on them.

-- CreateEnum
CREATE TYPE "ResourceKind" AS ENUM ('room', 'equipment');

-- AlterTable
ALTER TABLE "services" ADD COLUMN     "required_resource_ids" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "required_resource_kinds" "ResourceKind"[] DEFAULT ARRAY[]::"ResourceKind"[];

-- CreateTable
CREATE TABLE "resources" (
    "id" TEXT NOT NULL,
    "company_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "kind" "ResourceKind" NOT NULL,
    "working_hours" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "resources_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "resource_holds" (
    "id" TEXT NOT NULL,
    "resource_id" TEXT NOT NULL,
    "booking_id" TEXT,
    "class_session_id" TEXT,
    "start_time" TIMESTAMPTZ(3) NOT NULL,
    "end_time" TIMESTAMPTZ(3) NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,

    CONSTRAINT "resource_holds_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "resources_company_id_kind_idx" ON "resources"("company_id", "kind");

-- CreateIndex
CREATE INDEX "resource_holds_resource_id_start_time_idx" ON "resource_holds"("resource_id", "start_time");

-- CreateIndex
CREATE UNIQUE INDEX "resource_holds_booking_id_resource_id_key" ON "resource_holds"("booking_id", "resource_id");

-- CreateIndex
CREATE UNIQUE INDEX "resource_holds_class_session_id_resource_id_key" ON "resource_holds"("class_session_id", "resource_id");

-- AddForeignKey
ALTER TABLE "resources" ADD CONSTRAINT "resources_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "resource_holds" ADD CONSTRAINT "resource_holds_resource_id_fkey" FOREIGN KEY ("resource_id") REFERENCES "resources"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "resource_holds" ADD CONSTRAINT "resource_holds_booking_id_fkey" FOREIGN KEY ("booking_id") REFERENCES "bookings"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "resource_holds" ADD CONSTRAINT "resource_holds_class_session_id_fkey" FOREIGN KEY ("class_session_id") REFERENCES "class_sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Hand-written: a resource is never in two places, whatever the concurrency. A booking writes
-- one row per resource it holds in its own transaction (src/schema/resources/resource-holds.ts,
-- INSERT ... ON CONFLICT DO NOTHING, so a kind's next resource can be tried without aborting
-- the transaction); the exclusion constraint refuses any two active holds of one resource that
-- overlap. A violation (SQLSTATE 23P01) or a hold not written becomes 409 SLOT_UNAVAILABLE with
-- the reason RESOURCE_BUSY. Inactive rows stay as the record of what a booking used.
ALTER TABLE "resource_holds" ADD CONSTRAINT "resource_holds_one_source"
  CHECK (num_nonnulls("booking_id", "class_session_id") = 1);
ALTER TABLE "resource_holds" ADD CONSTRAINT "resource_holds_times_ordered" CHECK ("start_time" < "end_time");
ALTER TABLE "resource_holds" ADD CONSTRAINT "resource_holds_no_overlap"
  EXCLUDE USING gist ("resource_id" WITH =, tstzrange("start_time", "end_time", '[)') WITH &&) WHERE ("active");
ALTER TABLE "services" ADD CONSTRAINT "services_required_resources_bounded"
  CHECK (cardinality("required_resource_ids") <= 10 AND cardinality("required_resource_kinds") <= 2);

-- The holds follow their booking or session in the statement that changes it, as
-- employee_blocks do: active only while the booking is pending or confirmed (the session
-- scheduled), over its block's times. A cancel, an expiry or a completion releases them; a
-- reschedule moves them (the use case releases and takes them again, so a kind's resource may
-- change; any other write that moves a booking is checked by the constraint right here).
CREATE FUNCTION "booking_resource_holds"() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  UPDATE "resource_holds"
    SET "active" = NEW."status" IN ('pending', 'confirmed'), "start_time" = NEW."block_start", "end_time" = NEW."block_end"
    WHERE "booking_id" = NEW."id"
      AND ("active" IS DISTINCT FROM (NEW."status" IN ('pending', 'confirmed'))
        OR "start_time" <> NEW."block_start" OR "end_time" <> NEW."block_end");
  RETURN NULL;
END;
$$;

CREATE TRIGGER "bookings_resource_holds"
  AFTER UPDATE OF "status", "block_start", "block_end" ON "bookings"
  FOR EACH ROW EXECUTE FUNCTION "booking_resource_holds"();

CREATE FUNCTION "class_session_resource_holds"() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  UPDATE "resource_holds"
    SET "active" = NEW."status" = 'scheduled', "start_time" = NEW."start_time", "end_time" = NEW."end_time"
    WHERE "class_session_id" = NEW."id"
      AND ("active" IS DISTINCT FROM (NEW."status" = 'scheduled')
        OR "start_time" <> NEW."start_time" OR "end_time" <> NEW."end_time");
  RETURN NULL;
END;
$$;

CREATE TRIGGER "class_sessions_resource_holds"
  AFTER UPDATE OF "status", "start_time", "end_time" ON "class_sessions"
  FOR EACH ROW EXECUTE FUNCTION "class_session_resource_holds"();
