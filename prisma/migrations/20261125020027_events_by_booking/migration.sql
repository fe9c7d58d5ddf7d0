-- A booking's history (its events: data->>'bookingId') read through an index: the booking's
-- page in the admin area, `svc bookings show` and GraphQL's Booking.events. Partial, so events
-- that are not about a booking (payments, customers, pings) cost it nothing. An expression index,
-- which schema.prisma cannot state (like the customer search indexes).
CREATE INDEX "events_company_id_booking_id_idx" ON "events" ("company_id", (("data" ->> 'bookingId'))) WHERE ("data" ->> 'bookingId') IS NOT NULL;
