-- Request logs (docs/api.md, Request logs): one row per /api/v1 or /graphql request of a company,
-- in the database of the request's mode, kept 30 days (the created_at index serves the purge).
-- CreateTable
CREATE TABLE "request_logs" (
    "id" TEXT NOT NULL,
    "company_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "method" TEXT NOT NULL,
    "route" TEXT,
    "path" TEXT NOT NULL,
    "operation_name" TEXT,
    "status" INTEGER NOT NULL,
    "duration_ms" DOUBLE PRECISION NOT NULL,
    "request_id" TEXT NOT NULL,
    "credential_id" TEXT NOT NULL,
    "credential_name" TEXT NOT NULL,
    "credential_prefix" TEXT NOT NULL,
    "ip" TEXT NOT NULL,
    "idempotency_key" TEXT,
    "request_body" TEXT,
    "response_body" TEXT,

    CONSTRAINT "request_logs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "request_logs_company_id_id_idx" ON "request_logs"("company_id", "id");

-- CreateIndex
CREATE INDEX "request_logs_company_id_request_id_idx" ON "request_logs"("company_id", "request_id");

-- CreateIndex
CREATE INDEX "request_logs_created_at_idx" ON "request_logs"("created_at");

-- AddForeignKey
ALTER TABLE "request_logs" ADD CONSTRAINT "request_logs_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE CASCADE ON UPDATE CASCADE;
