-- Class waitlists (docs/api.md, Class waitlists): two new booking states. A migration of their
-- own, because PostgreSQL cannot use an enum value in the transaction that adds it.
ALTER TYPE "BookingStatus" ADD VALUE 'waitlisted';
ALTER TYPE "BookingStatus" ADD VALUE 'offered';
