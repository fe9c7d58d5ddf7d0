-- CreateEnum
CREATE TYPE "ExpiredReason" AS ENUM ('hold_lapsed', 'offer_lapsed');

-- AlterTable
ALTER TABLE "bookings" ADD COLUMN "expired_reason" "ExpiredReason",
ADD COLUMN "offer_expires_at" TIMESTAMPTZ(3),
ADD COLUMN "waitlist_position" INTEGER;

-- AlterTable
ALTER TABLE "class_sessions" ADD COLUMN "offered_count" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN "waitlist_count" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "services" ADD COLUMN "waitlist" JSONB;

-- CreateIndex
CREATE INDEX "bookings_status_offer_expires_at_idx" ON "bookings"("status", "offer_expires_at");

-- Hand-written: what the database guarantees of waitlists whatever the concurrency.

-- Bookings expired before reasons were kept were all payment holds.
UPDATE "bookings" SET "expired_reason" = 'hold_lapsed' WHERE "status" = 'expired';

-- confirmed + pending + offered <= capacity: offered places count in the same CHECK.
ALTER TABLE "class_sessions" DROP CONSTRAINT "class_sessions_capacity";
ALTER TABLE "class_sessions" ADD CONSTRAINT "class_sessions_capacity" CHECK (
  "booked_count" >= 0 AND "offered_count" >= 0 AND "waitlist_count" >= 0
  AND "booked_count" + "offered_count" <= "capacity" AND "capacity" > 0);

-- A position exactly while waitlisted, an offer's end exactly while offered.
ALTER TABLE "bookings" ADD CONSTRAINT "bookings_waitlist_fields" CHECK (
  ("waitlist_position" IS NOT NULL) = ("status" = 'waitlisted')
  AND ("offer_expires_at" IS NOT NULL) = ("status" = 'offered')
  AND ("waitlist_position" IS NULL OR "waitlist_position" >= 1)
  AND ("status" NOT IN ('waitlisted', 'offered') OR "class_session_id" IS NOT NULL));

-- No two waitlisted bookings of a session share a position. Deferred to the commit, so one
-- UPDATE can move everyone behind a leaver up by one whatever order it visits the rows in.
ALTER TABLE "bookings" ADD CONSTRAINT "bookings_waitlist_position_unique"
  EXCLUDE USING gist ("class_session_id" WITH =, "waitlist_position" WITH =)
  WHERE ("status" = 'waitlisted') DEFERRABLE INITIALLY DEFERRED;

-- A customer is at most once in a class session: holding a place, offered one or waiting.
ALTER TABLE "bookings" DROP CONSTRAINT "bookings_one_place_per_customer";
ALTER TABLE "bookings" ADD CONSTRAINT "bookings_one_place_per_customer"
  EXCLUDE USING gist ("class_session_id" WITH =, "customer_id" WITH =)
  WHERE ("status" IN ('pending', 'confirmed', 'waitlisted', 'offered') AND "class_session_id" IS NOT NULL);

