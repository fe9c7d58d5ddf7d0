-- Test clocks (docs/sandbox.md, Test clocks): a sandbox company's own frozen "now", moved
-- forward only by advancing it. A clock belongs to the test company that made it (deleted with
-- it, so a sandbox wipe deletes its clocks) and only that company attaches to it
-- (companies.test_clock_id, checked by the use case); deleting a clock detaches the company,
-- which returns to the real time. Live companies never have one (the API refuses it), though
-- both databases get the table.

-- CreateTable
CREATE TABLE "test_clocks" (
    "id" TEXT NOT NULL,
    "company_id" TEXT NOT NULL,
    "frozen_time" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "test_clocks_pkey" PRIMARY KEY ("id")
);

-- AlterTable
ALTER TABLE "companies" ADD COLUMN "test_clock_id" TEXT;

-- CreateIndex
CREATE INDEX "test_clocks_company_id_idx" ON "test_clocks"("company_id");

-- CreateIndex
CREATE INDEX "companies_test_clock_id_idx" ON "companies"("test_clock_id");

-- AddForeignKey
ALTER TABLE "test_clocks" ADD CONSTRAINT "test_clocks_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "companies" ADD CONSTRAINT "companies_test_clock_id_fkey" FOREIGN KEY ("test_clock_id") REFERENCES "test_clocks"("id") ON DELETE SET NULL ON UPDATE CASCADE;
