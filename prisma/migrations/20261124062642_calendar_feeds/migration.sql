-- Calendar feeds (docs/calendars.md): BASE_URL/calendar/<token>.ics, one per employee and one per
-- company (scope: the employee's id, or "company"). The token is kept twice: its SHA-256 for the
-- lookup, and sealed with the secret box so the admin area can show the URL again. Rotating
-- replaces both in one UPDATE, so the old URL stops at once.

-- CreateTable
CREATE TABLE "calendar_feeds" (
    "id" TEXT NOT NULL,
    "company_id" TEXT NOT NULL,
    "employee_id" TEXT,
    "scope" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "token_sealed" TEXT NOT NULL,
    "include_notes" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "rotated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "calendar_feeds_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "calendar_feeds_token_hash_key" ON "calendar_feeds"("token_hash");

-- CreateIndex
CREATE UNIQUE INDEX "calendar_feeds_company_id_scope_key" ON "calendar_feeds"("company_id", "scope");

-- CreateIndex
CREATE INDEX "calendar_feeds_employee_id_idx" ON "calendar_feeds"("employee_id");

-- AddForeignKey
ALTER TABLE "calendar_feeds" ADD CONSTRAINT "calendar_feeds_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "calendar_feeds" ADD CONSTRAINT "calendar_feeds_employee_id_fkey" FOREIGN KEY ("employee_id") REFERENCES "employees"("id") ON DELETE CASCADE ON UPDATE CASCADE;
