// The server under load: the real app (buildApp over real PostgreSQL and Redis, configured
// from the environment bench/run.ts passes), plus one bench-only route that returns a constant
// envelope, the ceiling /api/v1 routes are compared with. Run pinned to one core by run.ts.
// Prints one JSON line {"benchPort": N} on stdout when it listens; SIGTERM closes it cleanly (so
// `node --cpu-prof` writes its profile).
import { Type } from '@sinclair/typebox';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { success } from '../src/rest/envelope.js';
import { Envelope } from '../src/rest/schemas.js';
import { createServices } from '../src/services.js';
import { BARE_ROUTE, CPU_ROUTE } from './scenarios.js';

const config = loadConfig();
const services = await createServices(config);
const app = await buildApp(services);

const CONSTANT = { ok: true };
app.get(
  BARE_ROUTE,
  { schema: { hide: true, response: { 200: Envelope(Type.Object({ ok: Type.Boolean() })) } } },
  async (req) => success(CONSTANT, String(req.id)),
);

// The server's own CPU time, read by the load generator around the measured run: CPU per
// request is the figure least disturbed by other processes sharing the machine.
app.get(CPU_ROUTE, { schema: { hide: true } }, async () => process.cpuUsage());

// Several processes behind one port (bench/cluster.ts): each answer says which one gave it, so
// the many-process benchmark can show that every process served.
if (process.env.BENCH_PID_HEADER === '1')
  app.addHook('onSend', async (_req, reply) => {
    reply.header('x-bench-pid', String(process.pid));
  });

await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
process.stdout.write(`${JSON.stringify({ benchPort: typeof address === 'object' && address ? address.port : 0 })}\n`);

let closing = false;
process.on('SIGTERM', () => {
  if (closing) return;
  closing = true;
  void (async () => {
    await app.close();
    await services.close();
    process.exit(0);
  })();
});
