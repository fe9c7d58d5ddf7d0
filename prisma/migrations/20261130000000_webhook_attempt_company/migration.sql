-- A webhook attempt carries its company, as every other record a list pages over does: a page
-- cursor is looked up by id within the caller's company (src/schema/connections.ts), and a
-- cursor can be scoped only by the record's own columns. Filled from each attempt's delivery.
ALTER TABLE "webhook_attempts" ADD COLUMN "company_id" TEXT;
UPDATE "webhook_attempts" a SET "company_id" = d."company_id" FROM "webhook_deliveries" d WHERE d."id" = a."delivery_id";
ALTER TABLE "webhook_attempts" ALTER COLUMN "company_id" SET NOT NULL;
