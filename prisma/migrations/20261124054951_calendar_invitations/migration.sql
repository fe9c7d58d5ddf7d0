-- Calendar invitations (docs/calendars.md): the booking's iCalendar SEQUENCE, one more on every
-- reschedule (in the reschedule's transaction), and the files an e-mail carries (its invitation
-- .ics), kept with the e-mail so the sandbox log shows them and SMTP sends them.

-- AlterTable
ALTER TABLE "bookings" ADD COLUMN     "calendar_sequence" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "emails" ADD COLUMN     "attachments" JSONB NOT NULL DEFAULT '[]';
