-- Calendar versions (docs/performance.md, "Admin pages at scale"): the report versions
-- (migration report_versions) also cover what the admin calendar shows beyond the overview's
-- figures, so a rendered calendar can be kept against the same counters: customers (their names
-- are on the bookings), date overrides, closures, busy times from outside calendars, and
-- locations (an interval at a location is in its time zone). The same deferred triggers: raised
-- at the commit, on the writing backend's shard.
CREATE CONSTRAINT TRIGGER "customers_reports"
  AFTER INSERT OR UPDATE OR DELETE ON "customers" DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION "report_company_row_changed"();
CREATE CONSTRAINT TRIGGER "date_overrides_reports"
  AFTER INSERT OR UPDATE OR DELETE ON "date_overrides" DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION "report_company_row_changed"();
CREATE CONSTRAINT TRIGGER "closures_reports"
  AFTER INSERT OR UPDATE OR DELETE ON "closures" DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION "report_company_row_changed"();
CREATE CONSTRAINT TRIGGER "external_busy_reports"
  AFTER INSERT OR UPDATE OR DELETE ON "external_busy" DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION "report_company_row_changed"();
CREATE CONSTRAINT TRIGGER "locations_reports"
  AFTER INSERT OR UPDATE OR DELETE ON "locations" DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION "report_company_row_changed"();
