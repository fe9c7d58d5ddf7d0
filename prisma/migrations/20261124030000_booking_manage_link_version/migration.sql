-- AlterTable
-- The version a booking's manage link carries (docs/api.md, Manage links): rotating the link
-- adds one, and every token issued under an earlier version stops working.
ALTER TABLE "bookings" ADD COLUMN     "manage_link_version" INTEGER NOT NULL DEFAULT 0;
