-- CreateEnum
CREATE TYPE "PaymentKind" AS ENUM ('full', 'deposit', 'balance');

-- CreateEnum
CREATE TYPE "CancelledBy" AS ENUM ('business', 'customer');

-- AlterTable
ALTER TABLE "bookings" ADD COLUMN     "cancellation_fee" INTEGER,
ADD COLUMN     "cancelled_by" "CancelledBy",
ADD COLUMN     "deposit_amount" INTEGER;

-- AlterTable
ALTER TABLE "companies" ADD COLUMN     "booking_rules" JSONB NOT NULL DEFAULT '{}';

-- AlterTable
ALTER TABLE "payments" ADD COLUMN     "amount_refunded" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "kind" "PaymentKind" NOT NULL DEFAULT 'full';

-- AlterTable
ALTER TABLE "services" ADD COLUMN     "booking_rules" JSONB NOT NULL DEFAULT '{}',
ADD COLUMN     "cancellation_policy" JSONB,
ADD COLUMN     "deposit_amount" INTEGER;

-- Payments refunded before partial refunds existed were refunded in full.
UPDATE "payments" SET "amount_refunded" = "amount" WHERE "status" = 'refunded';

-- Never more refunded than was paid, whatever the concurrency: every refund adds to
-- amount_refunded in one conditional UPDATE that this CHECK backs (src/schema/payments/refund-payment.ts).
ALTER TABLE "payments" ADD CONSTRAINT "payments_refund_within_amount" CHECK ("amount_refunded" >= 0 AND "amount_refunded" <= "amount");

-- A deposit is part of the price.
ALTER TABLE "services" ADD CONSTRAINT "services_deposit_within_price" CHECK ("deposit_amount" IS NULL OR ("deposit_amount" > 0 AND "deposit_amount" <= "price"));
ALTER TABLE "bookings" ADD CONSTRAINT "bookings_deposit_within_price" CHECK ("deposit_amount" IS NULL OR ("deposit_amount" > 0 AND "deposit_amount" <= "price"));
ALTER TABLE "bookings" ADD CONSTRAINT "bookings_cancellation_fee_not_negative" CHECK ("cancellation_fee" IS NULL OR "cancellation_fee" >= 0);

-- One live payment per booking and kind (a deposit and then its balance; or one full payment).
-- A partially refunded payment still stands: the booking is paid, less what was given back.
DROP INDEX "payments_one_live_per_booking";
CREATE UNIQUE INDEX "payments_one_live_per_booking" ON "payments"("booking_id", "kind") WHERE "status" IN ('processing', 'succeeded', 'partially_refunded');
