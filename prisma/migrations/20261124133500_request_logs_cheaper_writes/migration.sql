-- Request logs are written at the rate of requests (docs/performance.md, request logs): the
-- foreign key to companies (a lookup and a lock on the company row for every inserted row) and
-- the B-tree on created_at cost the batched insert more than the row itself. Rows of a deleted
-- company are left out by the insert and deleted by the sandbox wipe; rows arrive in time order,
-- so a BRIN index serves the retention purge.
-- DropForeignKey
ALTER TABLE "request_logs" DROP CONSTRAINT "request_logs_company_id_fkey";

-- DropIndex
DROP INDEX "request_logs_created_at_idx";

-- CreateIndex
CREATE INDEX "request_logs_created_at_idx" ON "request_logs" USING BRIN ("created_at");
