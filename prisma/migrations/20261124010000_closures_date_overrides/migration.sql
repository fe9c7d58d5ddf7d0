-- CreateTable
CREATE TABLE "closures" (
    "id" TEXT NOT NULL,
    "company_id" TEXT NOT NULL,
    "start_time" TIMESTAMPTZ(3) NOT NULL,
    "end_time" TIMESTAMPTZ(3) NOT NULL,
    "reason" TEXT NOT NULL,
    "employee_ids" TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "closures_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "date_overrides" (
    "id" TEXT NOT NULL,
    "company_id" TEXT NOT NULL,
    "employee_id" TEXT NOT NULL,
    "date" TEXT NOT NULL,
    "intervals" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "date_overrides_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "closures_company_id_start_time_idx" ON "closures"("company_id", "start_time");

-- CreateIndex
CREATE INDEX "date_overrides_company_id_date_idx" ON "date_overrides"("company_id", "date");

-- CreateIndex
CREATE UNIQUE INDEX "date_overrides_employee_id_date_key" ON "date_overrides"("employee_id", "date");

-- AddForeignKey
ALTER TABLE "closures" ADD CONSTRAINT "closures_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "date_overrides" ADD CONSTRAINT "date_overrides_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "date_overrides" ADD CONSTRAINT "date_overrides_employee_id_fkey" FOREIGN KEY ("employee_id") REFERENCES "employees"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The database refuses what no request may write: an empty or inverted closure, a malformed date.
ALTER TABLE "closures" ADD CONSTRAINT "closures_time_order" CHECK ("end_time" > "start_time");
ALTER TABLE "date_overrides" ADD CONSTRAINT "date_overrides_date_format" CHECK ("date" ~ '^\d{4}-\d{2}-\d{2}$');
