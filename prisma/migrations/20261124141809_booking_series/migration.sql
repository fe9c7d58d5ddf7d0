-- Booking series (docs/api.md, Booking series): one service for one customer at the times of a
-- recurrence rule; each occurrence is an ordinary booking carrying series_id, guarded by the
-- employee exclusion constraint like any booking.

-- AlterTable
ALTER TABLE "bookings" ADD COLUMN     "series_id" TEXT;

-- CreateTable
CREATE TABLE "booking_series" (
    "id" TEXT NOT NULL,
    "company_id" TEXT NOT NULL,
    "service_id" TEXT NOT NULL,
    "employee_id" TEXT,
    "customer_id" TEXT NOT NULL,
    "rrule" TEXT NOT NULL,
    "time_zone" TEXT NOT NULL,
    "start_time" TIMESTAMPTZ(3) NOT NULL,
    "skipped" JSONB NOT NULL DEFAULT '[]',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "booking_series_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "booking_series_company_id_id_idx" ON "booking_series"("company_id", "id");

-- CreateIndex
CREATE INDEX "booking_series_customer_id_idx" ON "booking_series"("customer_id");

-- CreateIndex
CREATE INDEX "bookings_series_id_idx" ON "bookings"("series_id");

-- AddForeignKey
ALTER TABLE "bookings" ADD CONSTRAINT "bookings_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "booking_series"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "booking_series" ADD CONSTRAINT "booking_series_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "booking_series" ADD CONSTRAINT "booking_series_customer_id_fkey" FOREIGN KEY ("customer_id") REFERENCES "customers"("id") ON DELETE NO ACTION ON UPDATE CASCADE;

