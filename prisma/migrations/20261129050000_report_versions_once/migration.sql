-- Report versions, once a transaction (docs/performance.md, "Admin pages at scale"): a reader
-- compares sums, so one raise per company per committing transaction says all there is to say.
-- The deferred triggers fire once a row; a transaction writing many rows of one company (an
-- import of 100 000 customers, a sandbox restore, a bulk cancel) raised the same counter once a
-- row at its commit. The first raise now marks the company in a transaction-local setting and
-- the rest return at once.
CREATE OR REPLACE FUNCTION "bump_report_version"(company TEXT) RETURNS void LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  mark TEXT := 'svc_report_versions.c' || md5(company);
BEGIN
  IF current_setting(mark, true) = '1' THEN RETURN; END IF;
  INSERT INTO "report_versions" ("company_id", "shard", "version")
  SELECT company, pg_backend_pid() % 16, 1 WHERE EXISTS (SELECT 1 FROM "companies" WHERE "id" = company)
  ON CONFLICT ("company_id", "shard") DO UPDATE SET "version" = "report_versions"."version" + 1;
  PERFORM set_config(mark, '1', true);
END;
$$;
