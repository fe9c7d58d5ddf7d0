// Compiles the two programs, the server (src/server.ts) and the `svc` CLI (src/cli/main.ts),
// into plain JavaScript under dist/, so starting them costs no TypeScript loader (docs/cli.md).
// `npm run generate` runs this after the Prisma client, so `npm ci`, `npm start` and `npm test`
// always have a fresh build; packages stay imports of node_modules. Code splitting keeps what
// `svc --help` loads small: a command's code is a chunk loaded when the command runs.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

rmSync('dist', { recursive: true, force: true });
await build({
  entryPoints: { server: 'src/server.ts', cli: 'src/cli/main.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
});
