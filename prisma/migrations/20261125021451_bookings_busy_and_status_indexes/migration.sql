-- Two reads of bookings that walked a company's or an employee's whole history at scale
-- (docs/performance.md, "Scenarios at scale"):
--
-- An employee's busy times (availability, and the check every booking makes under the
-- employee's lock) ask for a company's live bookings of some employees whose block ends after
-- the window starts and starts before it ends. The index on (employee_id, start_time) bounds
-- only the employee, so the check read every booking the employee ever had (and the planner
-- added the company's whole index to it: 40 ms with 112 000 bookings in the company); ordered
-- by block_end, the past is skipped (0.4 ms).
CREATE INDEX "bookings_company_id_employee_id_block_end_idx" ON "bookings"("company_id", "employee_id", "block_end");

-- GET /bookings?status=: newest first among one status; without it the primary key is walked
-- backwards past every other status (and company) until a page is found.
CREATE INDEX "bookings_company_id_status_id_idx" ON "bookings"("company_id", "status", "id");
