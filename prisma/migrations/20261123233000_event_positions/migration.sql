-- Event positions (docs/api.md, Events): the outbox relay numbers events in the order it
-- dispatches them (src/workers/outbox-relay.ts), per database (live and sandbox each have their
-- own). Resume cursors use the position, never the id, whose order is not commit order.
ALTER TABLE "events" ADD COLUMN "position" BIGINT;

-- Events dispatched before positions existed are numbered in the order they were dispatched.
-- A ping never passes through the relay (the test button writes it already dispatched) and
-- has no position.
UPDATE "events" AS e SET "position" = o.n
  FROM (
    SELECT "id", row_number() OVER (ORDER BY "dispatched_at", "id") AS n
      FROM "events" WHERE "dispatched_at" IS NOT NULL AND "type" <> 'ping'
  ) AS o
 WHERE e."id" = o."id";

-- CreateIndex
CREATE UNIQUE INDEX "events_position_key" ON "events"("position");

-- CreateIndex
CREATE INDEX "events_company_id_position_idx" ON "events"("company_id", "position");
