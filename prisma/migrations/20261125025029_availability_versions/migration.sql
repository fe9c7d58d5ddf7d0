-- Availability versions (docs/performance.md, "CPU per request, issue 22 §4"): a counter per
-- scope (an employee, a service or a company id) that every committed write changing what
-- /availability answers raises, by the triggers below, inside the writing transaction. An API
-- process keeps computed availability with the sum of the counters it depends on and serves it
-- again only while that sum is unchanged; counters only grow, so an unchanged sum means no
-- such write was committed in between, whichever process or path (API, admin, CLI, workers,
-- outside-calendar sync) made it.
CREATE TABLE "availability_versions" (
    "scope_id" TEXT NOT NULL,
    "version" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "availability_versions_pkey" PRIMARY KEY ("scope_id")
);

CREATE FUNCTION "bump_availability_version"(scope TEXT) RETURNS void LANGUAGE sql SET search_path FROM CURRENT AS $$
  INSERT INTO "availability_versions" ("scope_id", "version") VALUES (scope, 1)
  ON CONFLICT ("scope_id") DO UPDATE SET "version" = "availability_versions"."version" + 1;
$$;

-- Rows that belong to one employee (their bookings, time off, outside busy times, date
-- overrides, the classes they teach): that employee's counter, before and after the change.
CREATE FUNCTION "availability_employee_row_changed"() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN PERFORM "bump_availability_version"(OLD."employee_id"); END IF;
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW."employee_id" IS DISTINCT FROM OLD."employee_id") THEN
    PERFORM "bump_availability_version"(NEW."employee_id");
  END IF;
  RETURN NULL;
END;
$$;

-- A qualification (employee_services): the service's counter (who is asked) and the employee's.
CREATE FUNCTION "availability_qualification_changed"() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    PERFORM "bump_availability_version"(OLD."service_id");
    PERFORM "bump_availability_version"(OLD."employee_id");
  END IF;
  IF TG_OP <> 'DELETE' THEN
    PERFORM "bump_availability_version"(NEW."service_id");
    PERFORM "bump_availability_version"(NEW."employee_id");
  END IF;
  RETURN NULL;
END;
$$;

-- The row's own id (an employee's hours or active flag, a service's timing, rules or needs).
CREATE FUNCTION "availability_own_row_changed"() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  PERFORM "bump_availability_version"(CASE WHEN TG_OP = 'DELETE' THEN OLD."id" ELSE NEW."id" END);
  RETURN NULL;
END;
$$;

-- Company-wide rows (closures, locations and their time zones): the company's counter.
CREATE FUNCTION "availability_company_row_changed"() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN PERFORM "bump_availability_version"(OLD."company_id"); END IF;
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW."company_id" IS DISTINCT FROM OLD."company_id") THEN
    PERFORM "bump_availability_version"(NEW."company_id");
  END IF;
  RETURN NULL;
END;
$$;

-- Bookings: only the columns availability reads (a note or a payment state changes nothing).
CREATE TRIGGER "bookings_availability_insert_delete"
  AFTER INSERT OR DELETE ON "bookings"
  FOR EACH ROW EXECUTE FUNCTION "availability_employee_row_changed"();
CREATE TRIGGER "bookings_availability_update"
  AFTER UPDATE ON "bookings"
  FOR EACH ROW WHEN (
    OLD."status" IS DISTINCT FROM NEW."status" OR OLD."employee_id" IS DISTINCT FROM NEW."employee_id"
    OR OLD."service_id" IS DISTINCT FROM NEW."service_id"
    OR OLD."class_session_id" IS DISTINCT FROM NEW."class_session_id"
    OR OLD."start_time" IS DISTINCT FROM NEW."start_time" OR OLD."end_time" IS DISTINCT FROM NEW."end_time"
    OR OLD."block_start" IS DISTINCT FROM NEW."block_start" OR OLD."block_end" IS DISTINCT FROM NEW."block_end")
  EXECUTE FUNCTION "availability_employee_row_changed"();

-- Class sessions block their instructor's time: not the places taken in them.
CREATE TRIGGER "class_sessions_availability_insert_delete"
  AFTER INSERT OR DELETE ON "class_sessions"
  FOR EACH ROW EXECUTE FUNCTION "availability_employee_row_changed"();
CREATE TRIGGER "class_sessions_availability_update"
  AFTER UPDATE ON "class_sessions"
  FOR EACH ROW WHEN (
    OLD."status" IS DISTINCT FROM NEW."status" OR OLD."employee_id" IS DISTINCT FROM NEW."employee_id"
    OR OLD."start_time" IS DISTINCT FROM NEW."start_time" OR OLD."end_time" IS DISTINCT FROM NEW."end_time")
  EXECUTE FUNCTION "availability_employee_row_changed"();

CREATE TRIGGER "time_off_availability"
  AFTER INSERT OR UPDATE OR DELETE ON "time_off"
  FOR EACH ROW EXECUTE FUNCTION "availability_employee_row_changed"();
CREATE TRIGGER "external_busy_availability"
  AFTER INSERT OR UPDATE OR DELETE ON "external_busy"
  FOR EACH ROW EXECUTE FUNCTION "availability_employee_row_changed"();
CREATE TRIGGER "date_overrides_availability"
  AFTER INSERT OR UPDATE OR DELETE ON "date_overrides"
  FOR EACH ROW EXECUTE FUNCTION "availability_employee_row_changed"();
CREATE TRIGGER "employee_services_availability"
  AFTER INSERT OR UPDATE OR DELETE ON "employee_services"
  FOR EACH ROW EXECUTE FUNCTION "availability_qualification_changed"();
CREATE TRIGGER "employees_availability"
  AFTER INSERT OR UPDATE OR DELETE ON "employees"
  FOR EACH ROW EXECUTE FUNCTION "availability_own_row_changed"();
CREATE TRIGGER "services_availability"
  AFTER INSERT OR UPDATE OR DELETE ON "services"
  FOR EACH ROW EXECUTE FUNCTION "availability_own_row_changed"();
CREATE TRIGGER "closures_availability"
  AFTER INSERT OR UPDATE OR DELETE ON "closures"
  FOR EACH ROW EXECUTE FUNCTION "availability_company_row_changed"();
CREATE TRIGGER "locations_availability"
  AFTER INSERT OR UPDATE OR DELETE ON "locations"
  FOR EACH ROW EXECUTE FUNCTION "availability_company_row_changed"();
