-- AlterTable
ALTER TABLE "emails" ADD COLUMN     "lease_until" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "events" ADD COLUMN     "dispatch_attempts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "dispatch_error" TEXT;

-- AlterTable
ALTER TABLE "webhook_deliveries" ADD COLUMN     "lease_until" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "webhook_endpoints" ADD COLUMN     "older_secret_enc" TEXT,
ADD COLUMN     "older_secret_expires_at" TIMESTAMPTZ(3);
