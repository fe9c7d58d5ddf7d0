-- AlterTable
ALTER TABLE "bookings" ADD COLUMN     "customer_time_zone" TEXT;
