#!/usr/bin/env node
// The `svc` CLI (docs/cli.md): the compiled JavaScript under dist/, which `npm ci` builds
// (scripts/build.mjs, run by `npm run generate`). A checkout without a build runs the
// TypeScript sources through tsx instead, slower to start but the same program.
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/cli.js', import.meta.url);
if (existsSync(compiled)) {
  await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}
