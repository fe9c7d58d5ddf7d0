-- CreateEnum
CREATE TYPE "ReminderChannel" AS ENUM ('email', 'webhook');

-- CreateEnum
CREATE TYPE "NotificationStatus" AS ENUM ('scheduled', 'sent', 'failed', 'cancelled', 'skipped');

-- AlterTable
ALTER TABLE "companies" ADD COLUMN     "reminders" JSONB NOT NULL DEFAULT '[{"offsetMinutes":1440,"channel":"email"}]';

-- AlterTable
ALTER TABLE "emails" ADD COLUMN     "notification_id" TEXT;

-- AlterTable
ALTER TABLE "services" ADD COLUMN     "reminders" JSONB;

-- CreateTable
CREATE TABLE "notifications" (
    "id" TEXT NOT NULL,
    "company_id" TEXT NOT NULL,
    "booking_id" TEXT NOT NULL,
    "channel" "ReminderChannel" NOT NULL,
    "offset_minutes" INTEGER NOT NULL,
    "due_at" TIMESTAMPTZ(3) NOT NULL,
    "status" "NotificationStatus" NOT NULL,
    "sent_at" TIMESTAMPTZ(3),
    "reason" TEXT,
    "version" INTEGER NOT NULL DEFAULT 0,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "notifications_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "notifications_company_id_id_idx" ON "notifications"("company_id", "id");

-- CreateIndex
CREATE INDEX "notifications_booking_id_id_idx" ON "notifications"("booking_id", "id");

-- CreateIndex
CREATE INDEX "notifications_status_due_at_idx" ON "notifications"("status", "due_at");

-- CreateIndex
CREATE UNIQUE INDEX "emails_notification_id_key" ON "emails"("notification_id");

-- AddForeignKey
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_booking_id_fkey" FOREIGN KEY ("booking_id") REFERENCES "bookings"("id") ON DELETE CASCADE ON UPDATE CASCADE;
