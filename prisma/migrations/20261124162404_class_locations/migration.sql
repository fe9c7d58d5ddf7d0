-- Locations of classes and series (docs/api.md, Locations, Class schedules, Booking series): a
-- class schedule may name its location (its times are then in the location's zone) and resources
-- each of its sessions holds (through resource_holds and its exclusion constraint); a class
-- session records where it takes place; a booking series records the location whose zone its
-- rule expands in. Null everywhere for a company without locations.

-- AlterTable
ALTER TABLE "booking_series" ADD COLUMN     "location_id" TEXT;

-- AlterTable
ALTER TABLE "class_schedules" ADD COLUMN     "location_id" TEXT,
ADD COLUMN     "resource_ids" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- AlterTable
ALTER TABLE "class_sessions" ADD COLUMN     "location_id" TEXT;

-- AddForeignKey
ALTER TABLE "class_sessions" ADD CONSTRAINT "class_sessions_location_id_fkey" FOREIGN KEY ("location_id") REFERENCES "locations"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "class_schedules" ADD CONSTRAINT "class_schedules_location_id_fkey" FOREIGN KEY ("location_id") REFERENCES "locations"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "booking_series" ADD CONSTRAINT "booking_series_location_id_fkey" FOREIGN KEY ("location_id") REFERENCES "locations"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- As many resources as a service may require, at most (MAX_REQUIRED_RESOURCES).
ALTER TABLE "class_schedules" ADD CONSTRAINT "class_schedules_resources_bounded"
  CHECK (cardinality("resource_ids") <= 10);
