-- The API version a company is pinned to (docs/api.md, Versions): the companies that exist
-- already were built against the first one; new companies get the latest (createCompany).
ALTER TABLE "companies" ADD COLUMN "api_version" TEXT NOT NULL DEFAULT '2026-11-23';
