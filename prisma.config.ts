// Prisma 7 reads its settings here. The CLI is used only for `generate` on these machines
// (its schema engine cannot be downloaded); migrations are applied by src/db/migrate.ts.
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://localhost:5432/unused' },
});
