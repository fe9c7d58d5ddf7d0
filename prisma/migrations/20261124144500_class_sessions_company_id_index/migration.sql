-- GET /classes lists a company's sessions newest first by id; without this index the planner
-- walks the whole primary key backwards and filters by company (test/db/query-plans.test.ts).
-- CreateIndex
CREATE INDEX "class_sessions_company_id_id_idx" ON "class_sessions"("company_id", "id");
