-- Intake questions (docs/api.md, Questions and answers): a service's questions, judged by
-- src/schema/services/questions.ts; a booking's answers, each stored with a snapshot of its
-- question's label and type.

-- AlterTable
ALTER TABLE "bookings" ADD COLUMN     "answers" JSONB NOT NULL DEFAULT '[]';

-- AlterTable
ALTER TABLE "services" ADD COLUMN     "questions" JSONB NOT NULL DEFAULT '[]';
