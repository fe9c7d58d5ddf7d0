-- Report versions (docs/performance.md, "Admin pages at scale"): counters per company that every
-- committed write changing what the booking reports of the admin overview show raises, by the
-- triggers below, inside the writing transaction: bookings, class sessions, payments, the staff
-- (names, hours, active flag, services), services (names, active flag) and time off. A process
-- keeps a company's computed overview figures with the sum of its counters and serves them again
-- only while that sum is unchanged; counters only grow, so an unchanged sum means no such write
-- was committed in between, whichever process or path (API, admin, CLI, workers, plain SQL) made
-- it.
--
-- The triggers are deferred to the commit: a transaction raises its counter as the last thing it
-- does, holding that row only while it commits, so it never waits for the counter while holding
-- the staff member's lock or availability version another transaction needs (a payment settled
-- on a booking, and a booking of the same staff member, would otherwise be able to wait for each
-- other). And a company has up to 16 counter rows (shards), one chosen by the writing backend's
-- process id, so two writes of one company committing at once (two receptionists booking two
-- staff members, a payment arriving) rarely touch the same row. Readers add the shards up.
CREATE TABLE "report_versions" (
    "company_id" TEXT NOT NULL,
    "shard" SMALLINT NOT NULL,
    "version" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "report_versions_pkey" PRIMARY KEY ("company_id", "shard")
);

-- Not for a company deleted in the same transaction (its rows cascade, and their deferred
-- triggers run after the company is gone): a deleted company keeps no counters.
CREATE FUNCTION "bump_report_version"(company TEXT) RETURNS void LANGUAGE sql SET search_path FROM CURRENT AS $$
  INSERT INTO "report_versions" ("company_id", "shard", "version")
  SELECT company, pg_backend_pid() % 16, 1 WHERE EXISTS (SELECT 1 FROM "companies" WHERE "id" = company)
  ON CONFLICT ("company_id", "shard") DO UPDATE SET "version" = "report_versions"."version" + 1;
$$;

-- A deleted company's counters go with it.
CREATE FUNCTION "report_company_deleted"() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  DELETE FROM "report_versions" WHERE "company_id" = OLD."id";
  RETURN NULL;
END;
$$;
CREATE TRIGGER "companies_report_versions"
  AFTER DELETE ON "companies"
  FOR EACH ROW EXECUTE FUNCTION "report_company_deleted"();

-- A row with a company_id: that company's counter, before and after the change.
CREATE FUNCTION "report_company_row_changed"() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN PERFORM "bump_report_version"(OLD."company_id"); END IF;
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW."company_id" IS DISTINCT FROM OLD."company_id") THEN
    PERFORM "bump_report_version"(NEW."company_id");
  END IF;
  RETURN NULL;
END;
$$;

-- A qualification (employee_services) has no company_id: its employee's company. (When the
-- employee itself is being deleted, the employee's own trigger has raised it.)
CREATE FUNCTION "report_qualification_changed"() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  company TEXT;
BEGIN
  SELECT "company_id" INTO company FROM "employees"
  WHERE "id" = CASE WHEN TG_OP = 'DELETE' THEN OLD."employee_id" ELSE NEW."employee_id" END;
  IF company IS NOT NULL THEN PERFORM "bump_report_version"(company); END IF;
  RETURN NULL;
END;
$$;

-- Bookings: any change (status, times, staff, service, price, visit, class); a note too, which
-- is rare enough not to be worth a column list that a new figure could outgrow.
CREATE CONSTRAINT TRIGGER "bookings_reports"
  AFTER INSERT OR UPDATE OR DELETE ON "bookings" DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION "report_company_row_changed"();
CREATE CONSTRAINT TRIGGER "class_sessions_reports"
  AFTER INSERT OR UPDATE OR DELETE ON "class_sessions" DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION "report_company_row_changed"();
CREATE CONSTRAINT TRIGGER "payments_reports"
  AFTER INSERT OR UPDATE OR DELETE ON "payments" DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION "report_company_row_changed"();
CREATE CONSTRAINT TRIGGER "employees_reports"
  AFTER INSERT OR UPDATE OR DELETE ON "employees" DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION "report_company_row_changed"();
CREATE CONSTRAINT TRIGGER "services_reports"
  AFTER INSERT OR UPDATE OR DELETE ON "services" DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION "report_company_row_changed"();
CREATE CONSTRAINT TRIGGER "time_off_reports"
  AFTER INSERT OR UPDATE OR DELETE ON "time_off" DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION "report_company_row_changed"();
CREATE CONSTRAINT TRIGGER "employee_services_reports"
  AFTER INSERT OR UPDATE OR DELETE ON "employee_services" DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION "report_qualification_changed"();
