-- A visit paid as one (docs/api.md, Payments: paying a visit): a payment is for one booking or
-- for one visit, never both, never neither.
ALTER TABLE "payments" ALTER COLUMN "booking_id" DROP NOT NULL,
ADD COLUMN     "visit_id" TEXT;

ALTER TABLE "payments" ADD CONSTRAINT "payments_booking_or_visit" CHECK (("booking_id" IS NULL) <> ("visit_id" IS NULL));

-- CreateIndex
CREATE INDEX "payments_visit_id_idx" ON "payments"("visit_id");

-- One live payment per visit, as payments_one_live_per_booking is for a booking: a payment
-- processing, succeeded or partially refunded stands, and concurrent payments of one visit
-- get one row between them (createPayment turns the loser's violation into 409 CONFLICT).
CREATE UNIQUE INDEX "payments_one_live_per_visit" ON "payments"("visit_id") WHERE "status" IN ('processing', 'succeeded', 'partially_refunded');

-- AddForeignKey
ALTER TABLE "payments" ADD CONSTRAINT "payments_visit_id_fkey" FOREIGN KEY ("visit_id") REFERENCES "visits"("id") ON DELETE CASCADE ON UPDATE CASCADE;
