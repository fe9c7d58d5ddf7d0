// Writes the OpenAPI document the app serves at /openapi.json, built in process: no server
// listens and no database is reached (the pool connects lazily and nothing queries it).
//   tsx scripts/openapi.ts [file]     (default: stdout)
// `npm run lint:openapi` lints what this writes with Spectral and Redocly (docs/api.md, "OpenAPI").
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createServices } from '../src/services.js';

const config = loadConfig({
  NODE_ENV: 'test',
  LOG_LEVEL: 'silent',
  // Never connected to: a closed port, so a query by mistake fails loudly instead of touching data.
  DATABASE_URL: 'postgresql://openapi@127.0.0.1:1/none',
});
const services = await createServices(config);
const app = await buildApp(services);
await app.ready();
const text = `${JSON.stringify(app.swagger(), null, 2)}\n`;
await app.close();
await services.close();
const out = process.argv[2];
if (out) {
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, text);
} else process.stdout.write(text);
