-- AlterTable
ALTER TABLE "oauth_codes" ADD COLUMN     "redirect_uri_given" BOOLEAN NOT NULL DEFAULT true;

-- CreateTable
CREATE TABLE "oauth_grants" (
    "id" TEXT NOT NULL,
    "client_id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "company_id" TEXT NOT NULL,
    "mode" "Mode" NOT NULL,
    "scope" TEXT NOT NULL,
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "oauth_grants_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "oauth_grants_account_id_idx" ON "oauth_grants"("account_id");

-- CreateIndex
CREATE INDEX "oauth_grants_client_id_idx" ON "oauth_grants"("client_id");
