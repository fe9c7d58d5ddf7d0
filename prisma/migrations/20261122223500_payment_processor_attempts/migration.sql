-- AlterTable
ALTER TABLE "payments" ADD COLUMN     "attempts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "failure_message" TEXT,
ADD COLUMN     "last_error" TEXT;
