-- Teams, roles, invitations and the audit log (docs/admin.md, Team and roles; Audit log). All
-- three are control plane and used in the live database only, like accounts; the sandbox
-- database gets the same (empty) tables, as every migration runs on both.

-- CreateEnum
CREATE TYPE "TeamRole" AS ENUM ('admin', 'staff', 'viewer');

-- CreateTable
CREATE TABLE "memberships" (
    "id" TEXT NOT NULL,
    "team_account_id" TEXT NOT NULL,
    "member_account_id" TEXT NOT NULL,
    "role" "TeamRole" NOT NULL,
    "live_employee_id" TEXT,
    "test_employee_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "memberships_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "invitations" (
    "id" TEXT NOT NULL,
    "team_account_id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "role" "TeamRole" NOT NULL,
    "mode" "Mode",
    "employee_id" TEXT,
    "token_hash" TEXT NOT NULL,
    "invited_by_id" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "accepted_at" TIMESTAMPTZ(3),
    "accepted_by_id" TEXT,
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "invitations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "audit_log" (
    "id" TEXT NOT NULL,
    "team_account_id" TEXT NOT NULL,
    "actor_account_id" TEXT NOT NULL,
    "actor_email" TEXT NOT NULL,
    "mode" "Mode",
    "company_id" TEXT,
    "action" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "target_type" TEXT,
    "target_id" TEXT,
    "before" JSONB,
    "after" JSONB,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "audit_log_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "memberships_member_account_id_idx" ON "memberships"("member_account_id");

-- CreateIndex
CREATE UNIQUE INDEX "memberships_team_account_id_member_account_id_key" ON "memberships"("team_account_id", "member_account_id");

-- CreateIndex
CREATE UNIQUE INDEX "invitations_token_hash_key" ON "invitations"("token_hash");

-- CreateIndex
CREATE INDEX "invitations_team_account_id_id_idx" ON "invitations"("team_account_id", "id");

-- CreateIndex
CREATE INDEX "invitations_expires_at_idx" ON "invitations"("expires_at");

-- CreateIndex
CREATE INDEX "audit_log_team_account_id_id_idx" ON "audit_log"("team_account_id", "id");

-- AddForeignKey
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_team_account_id_fkey" FOREIGN KEY ("team_account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_member_account_id_fkey" FOREIGN KEY ("member_account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_team_account_id_fkey" FOREIGN KEY ("team_account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Nobody is a member of their own team (the owning account is its owner), and only a staff
-- membership names employees.
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_not_self" CHECK ("team_account_id" <> "member_account_id");
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_employee_only_for_staff"
  CHECK ("role" = 'staff' OR ("live_employee_id" IS NULL AND "test_employee_id" IS NULL));
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_employee_only_for_staff"
  CHECK (("role" = 'staff') = ("employee_id" IS NOT NULL) AND ("employee_id" IS NULL) = ("mode" IS NULL));
