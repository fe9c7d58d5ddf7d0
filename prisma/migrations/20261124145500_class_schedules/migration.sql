-- Class schedules (docs/api.md, Class schedules): a recurring timetable, an RRULE at a local
-- wall-clock time, expanded into class sessions up to a rolling horizon by the
-- extend-class-schedules job and by test-clock advances. Each generated session names its
-- schedule; the unique index on (schedule_id, start_time) makes a second session for one
-- occurrence impossible, whichever worker (or advance) generates it.

-- CreateEnum
CREATE TYPE "ClassScheduleStatus" AS ENUM ('active', 'stopped');

-- AlterTable
ALTER TABLE "class_sessions" ADD COLUMN     "schedule_id" TEXT;

-- CreateTable
CREATE TABLE "class_schedules" (
    "id" TEXT NOT NULL,
    "company_id" TEXT NOT NULL,
    "service_id" TEXT NOT NULL,
    "employee_id" TEXT NOT NULL,
    "local_start_time" TEXT NOT NULL,
    "rrule" TEXT NOT NULL,
    "capacity" INTEGER NOT NULL,
    "starts_on" TEXT NOT NULL,
    "ends_on" TEXT,
    "status" "ClassScheduleStatus" NOT NULL DEFAULT 'active',
    "generated_until" TIMESTAMPTZ(3) NOT NULL,
    "skipped_occurrences" JSONB NOT NULL DEFAULT '[]',
    "unchanged_sessions" JSONB NOT NULL DEFAULT '[]',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "class_schedules_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "class_schedules_company_id_id_idx" ON "class_schedules"("company_id", "id");

-- CreateIndex
CREATE INDEX "class_schedules_status_generated_until_idx" ON "class_schedules"("status", "generated_until");

-- CreateIndex
CREATE UNIQUE INDEX "class_sessions_schedule_id_start_time_key" ON "class_sessions"("schedule_id", "start_time");

-- AddForeignKey
ALTER TABLE "class_sessions" ADD CONSTRAINT "class_sessions_schedule_id_fkey" FOREIGN KEY ("schedule_id") REFERENCES "class_schedules"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "class_schedules" ADD CONSTRAINT "class_schedules_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "class_schedules" ADD CONSTRAINT "class_schedules_service_id_fkey" FOREIGN KEY ("service_id") REFERENCES "services"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "class_schedules" ADD CONSTRAINT "class_schedules_employee_id_fkey" FOREIGN KEY ("employee_id") REFERENCES "employees"("id") ON DELETE CASCADE ON UPDATE CASCADE;


ALTER TABLE "class_schedules" ADD CONSTRAINT "class_schedules_capacity_range" CHECK ("capacity" BETWEEN 1 AND 10000);
ALTER TABLE "class_schedules" ADD CONSTRAINT "class_schedules_local_start_time_hhmm"
  CHECK ("local_start_time" ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$');
