-- A value added to an enum cannot be used in the transaction that adds it, so this migration
-- only adds it; the next one uses it.
ALTER TYPE "PaymentStatus" ADD VALUE 'partially_refunded' BEFORE 'refunded';
