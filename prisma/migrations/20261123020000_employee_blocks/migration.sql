-- DropForeignKey
ALTER TABLE "bookings" DROP CONSTRAINT "bookings_customer_id_fkey";

-- CreateTable
CREATE TABLE "employee_blocks" (
    "id" TEXT NOT NULL,
    "employee_id" TEXT NOT NULL,
    "booking_id" TEXT,
    "class_session_id" TEXT,
    "start_time" TIMESTAMPTZ(3) NOT NULL,
    "end_time" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "employee_blocks_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "employee_blocks_booking_id_key" ON "employee_blocks"("booking_id");

-- CreateIndex
CREATE UNIQUE INDEX "employee_blocks_class_session_id_key" ON "employee_blocks"("class_session_id");

-- AddForeignKey
ALTER TABLE "bookings" ADD CONSTRAINT "bookings_customer_id_fkey" FOREIGN KEY ("customer_id") REFERENCES "customers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "employee_blocks" ADD CONSTRAINT "employee_blocks_employee_id_fkey" FOREIGN KEY ("employee_id") REFERENCES "employees"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "employee_blocks" ADD CONSTRAINT "employee_blocks_booking_id_fkey" FOREIGN KEY ("booking_id") REFERENCES "bookings"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "employee_blocks" ADD CONSTRAINT "employee_blocks_class_session_id_fkey" FOREIGN KEY ("class_session_id") REFERENCES "class_sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Hand-written: an employee is never in two places (API.md §5), whatever the concurrency.
-- `bookings_no_overlap` only compared appointments with appointments; a class session its
-- instructor teaches was checked against their appointments (and other sessions) by a read
-- before the write, which two concurrent requests both pass. Every commitment of an employee
-- now has one row here, written by the triggers below in the same statement as the booking
-- or session change, and one exclusion constraint refuses any two that overlap:
--   * a pending/confirmed appointment booking: its block (buffers included);
--   * a scheduled class session: its times (the class's bookings share them and add nothing).
-- A violation is SQLSTATE 23P01 from the statement that wrote the booking or session; the use
-- cases answer it with 409 SLOT_UNAVAILABLE.
ALTER TABLE "employee_blocks" ADD CONSTRAINT "employee_blocks_one_source"
  CHECK (num_nonnulls("booking_id", "class_session_id") = 1 AND "id" = COALESCE("booking_id", "class_session_id"));
ALTER TABLE "employee_blocks" ADD CONSTRAINT "employee_blocks_times_ordered" CHECK ("start_time" < "end_time");
ALTER TABLE "employee_blocks" ADD CONSTRAINT "employee_blocks_no_overlap"
  EXCLUDE USING gist ("employee_id" WITH =, tstzrange("start_time", "end_time", '[)') WITH &&);

-- The functions resolve "employee_blocks" in the schema they were created in (live or sandbox),
-- whatever the search_path of the session that fires them.
CREATE FUNCTION "booking_employee_block"() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  IF NEW."status" IN ('pending', 'confirmed') AND NEW."class_session_id" IS NULL THEN
    INSERT INTO "employee_blocks" ("id", "employee_id", "booking_id", "start_time", "end_time")
    VALUES (NEW."id", NEW."employee_id", NEW."id", NEW."block_start", NEW."block_end")
    ON CONFLICT ("id") DO UPDATE
      SET "employee_id" = EXCLUDED."employee_id", "start_time" = EXCLUDED."start_time", "end_time" = EXCLUDED."end_time";
  ELSIF TG_OP = 'UPDATE' THEN
    DELETE FROM "employee_blocks" WHERE "id" = NEW."id";
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER "bookings_employee_block"
  AFTER INSERT OR UPDATE OF "status", "employee_id", "block_start", "block_end", "class_session_id" ON "bookings"
  FOR EACH ROW EXECUTE FUNCTION "booking_employee_block"();

CREATE FUNCTION "class_session_employee_block"() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  IF NEW."status" = 'scheduled' THEN
    INSERT INTO "employee_blocks" ("id", "employee_id", "class_session_id", "start_time", "end_time")
    VALUES (NEW."id", NEW."employee_id", NEW."id", NEW."start_time", NEW."end_time")
    ON CONFLICT ("id") DO UPDATE
      SET "employee_id" = EXCLUDED."employee_id", "start_time" = EXCLUDED."start_time", "end_time" = EXCLUDED."end_time";
  ELSIF TG_OP = 'UPDATE' THEN
    DELETE FROM "employee_blocks" WHERE "id" = NEW."id";
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER "class_sessions_employee_block"
  AFTER INSERT OR UPDATE OF "status", "employee_id", "start_time", "end_time" ON "class_sessions"
  FOR EACH ROW EXECUTE FUNCTION "class_session_employee_block"();

-- The rows that exist already. Commitments that overlap from before this migration cannot
-- both get a block: the earlier session (then booking) keeps its block, the other is left
-- without one (ON CONFLICT DO NOTHING honours the exclusion constraint) and gets one again
-- when it is next changed, if it then fits.
INSERT INTO "employee_blocks" ("id", "employee_id", "class_session_id", "start_time", "end_time")
  SELECT "id", "employee_id", "id", "start_time", "end_time" FROM "class_sessions" WHERE "status" = 'scheduled' ORDER BY "id"
  ON CONFLICT DO NOTHING;
INSERT INTO "employee_blocks" ("id", "employee_id", "booking_id", "start_time", "end_time")
  SELECT "id", "employee_id", "id", "block_start", "block_end" FROM "bookings"
  WHERE "status" IN ('pending', 'confirmed') AND "class_session_id" IS NULL ORDER BY "id"
  ON CONFLICT DO NOTHING;

-- Superseded by employee_blocks_no_overlap, which compares the same appointment blocks.
ALTER TABLE "bookings" DROP CONSTRAINT "bookings_no_overlap";
