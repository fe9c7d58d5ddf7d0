-- AlterTable
ALTER TABLE "emails" ADD COLUMN     "to_name" TEXT;
