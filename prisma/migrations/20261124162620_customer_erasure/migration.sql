-- Customer erasure (docs/api.md, Customers: erase and export): when the customer's personal data
-- was replaced by placeholders. Null for a customer who was never erased; set once, never cleared.

-- AlterTable
ALTER TABLE "customers" ADD COLUMN     "erased_at" TIMESTAMPTZ(3);
