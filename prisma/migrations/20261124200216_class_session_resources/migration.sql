-- One-off class sessions name resources too (docs/api.md, Class sessions): `resource_ids` are the
-- resources a session holds besides those its service requires (a schedule's session: the
-- schedule's resourceIds; one scheduled by hand: those given to POST/PATCH /classes). The holds
-- themselves stay in resource_holds, under its exclusion constraint.

-- AlterTable
ALTER TABLE "class_sessions" ADD COLUMN     "resource_ids" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- As many resources as a service may require, at most (MAX_REQUIRED_RESOURCES), as a schedule's.
ALTER TABLE "class_sessions" ADD CONSTRAINT "class_sessions_resources_bounded"
  CHECK (cardinality("resource_ids") <= 10);

-- The sessions generated so far hold their schedule's resources: record those they hold.
UPDATE "class_sessions" AS s
   SET "resource_ids" = ARRAY(
         SELECT r FROM unnest(cs."resource_ids") AS r
          WHERE EXISTS (SELECT 1 FROM "resource_holds" h WHERE h."class_session_id" = s."id" AND h."resource_id" = r))
  FROM "class_schedules" AS cs
 WHERE s."schedule_id" = cs."id" AND cardinality(cs."resource_ids") > 0;
