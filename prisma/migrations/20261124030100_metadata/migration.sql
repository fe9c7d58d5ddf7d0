-- Metadata (docs/api.md, Metadata): free-form string key/value pairs on the integration's objects.
-- Validated by src/schema/metadata.ts; a PATCH merges in one UPDATE (metadata || set) - removed.

-- AlterTable
ALTER TABLE "bookings" ADD COLUMN     "metadata" JSONB NOT NULL DEFAULT '{}';

-- AlterTable
ALTER TABLE "companies" ADD COLUMN     "metadata" JSONB NOT NULL DEFAULT '{}';

-- AlterTable
ALTER TABLE "customers" ADD COLUMN     "metadata" JSONB NOT NULL DEFAULT '{}';

-- AlterTable
ALTER TABLE "employees" ADD COLUMN     "metadata" JSONB NOT NULL DEFAULT '{}';

-- AlterTable
ALTER TABLE "payments" ADD COLUMN     "metadata" JSONB NOT NULL DEFAULT '{}';

-- AlterTable
ALTER TABLE "services" ADD COLUMN     "metadata" JSONB NOT NULL DEFAULT '{}';
