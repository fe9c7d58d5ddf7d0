-- Customer search (docs/admin.md, Customers): a case-insensitive prefix of the name, the e-mail
-- or the phone number's digits, within one company (src/schema/customers/search-customers.ts).
-- text_pattern_ops makes `LIKE 'prefix%'` an index range scan whatever the database's
-- collation; company_id first, so a search never reads another company's rows. All three are
-- expression indexes, which schema.prisma cannot state (like the exclusion constraints of
-- earlier migrations): e-mails are stored lower-cased already, and lower() here only makes the
-- index and the query say the same expression; a phone is E.164, indexed without its "+".
CREATE INDEX "customers_search_name_idx" ON "customers"("company_id", lower("name") text_pattern_ops);
CREATE INDEX "customers_search_email_idx" ON "customers"("company_id", lower("email") text_pattern_ops);
CREATE INDEX "customers_search_phone_idx" ON "customers"("company_id", ltrim("phone", '+') text_pattern_ops);
