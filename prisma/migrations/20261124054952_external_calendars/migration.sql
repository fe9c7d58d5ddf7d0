-- CreateTable
CREATE TABLE "external_calendars" (
    "id" TEXT NOT NULL,
    "company_id" TEXT NOT NULL,
    "employee_id" TEXT NOT NULL,
    "slot" SMALLINT NOT NULL,
    "name" TEXT NOT NULL,
    "url_enc" TEXT NOT NULL,
    "url_redacted" TEXT NOT NULL,
    "etag" TEXT,
    "last_modified" TEXT,
    "last_success_at" TIMESTAMPTZ(3),
    "last_error" TEXT,
    "last_error_at" TIMESTAMPTZ(3),
    "next_fetch_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lease_until" TIMESTAMPTZ(3),
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "external_calendars_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "external_busy" (
    "id" BIGSERIAL NOT NULL,
    "company_id" TEXT NOT NULL,
    "employee_id" TEXT NOT NULL,
    "calendar_id" TEXT NOT NULL,
    "start_time" TIMESTAMPTZ(3) NOT NULL,
    "end_time" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "external_busy_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "external_calendars_next_fetch_at_idx" ON "external_calendars"("next_fetch_at");

-- CreateIndex
CREATE INDEX "external_calendars_company_id_employee_id_idx" ON "external_calendars"("company_id", "employee_id");

-- CreateIndex
CREATE UNIQUE INDEX "external_calendars_employee_id_slot_key" ON "external_calendars"("employee_id", "slot");

-- CreateIndex
CREATE INDEX "external_busy_employee_id_start_time_idx" ON "external_busy"("employee_id", "start_time");

-- CreateIndex
CREATE INDEX "external_busy_calendar_id_idx" ON "external_busy"("calendar_id");

-- AddForeignKey
ALTER TABLE "external_calendars" ADD CONSTRAINT "external_calendars_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "external_calendars" ADD CONSTRAINT "external_calendars_employee_id_fkey" FOREIGN KEY ("employee_id") REFERENCES "employees"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "external_busy" ADD CONSTRAINT "external_busy_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "external_busy" ADD CONSTRAINT "external_busy_employee_id_fkey" FOREIGN KEY ("employee_id") REFERENCES "employees"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "external_busy" ADD CONSTRAINT "external_busy_calendar_id_fkey" FOREIGN KEY ("calendar_id") REFERENCES "external_calendars"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The database keeps what no request may write: at most five calendars per employee (slots 0-4),
-- empty or inverted busy times.
ALTER TABLE "external_calendars" ADD CONSTRAINT "external_calendars_slot_range" CHECK ("slot" BETWEEN 0 AND 4);
ALTER TABLE "external_busy" ADD CONSTRAINT "external_busy_time_order" CHECK ("end_time" > "start_time");
