-- A busy time belongs to its calendar's employee: the database guarantees it with a composite
-- foreign key (calendar_id, employee_id) -> external_calendars(id, employee_id), which replaces
-- the calendar_id-only one.
CREATE UNIQUE INDEX "external_calendars_id_employee_id_key" ON "external_calendars"("id", "employee_id");

ALTER TABLE "external_busy" DROP CONSTRAINT "external_busy_calendar_id_fkey";

ALTER TABLE "external_busy" ADD CONSTRAINT "external_busy_calendar_id_employee_id_fkey" FOREIGN KEY ("calendar_id", "employee_id") REFERENCES "external_calendars"("id", "employee_id") ON DELETE CASCADE ON UPDATE CASCADE;
