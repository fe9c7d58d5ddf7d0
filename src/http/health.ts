// Liveness and readiness (API.md §1). Readiness checks what requests need: both databases and,
// when configured, Redis.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.js';

async function check(fn: () => Promise<unknown>, timeoutMs = 2000): Promise<'ok' | string> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      fn(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('timed out')), timeoutMs);
      }),
    ]);
    return 'ok';
  } catch (err) {
    return `error: ${(err as Error).message.split('\n')[0]}`;
  } finally {
    clearTimeout(timer);
  }
}

export function registerHealth(app: FastifyInstance, services: Services): void {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) => {
    const checks: Record<string, string> = {
      database: await check(() => services.dbs.ping()),
    };
    if (services.redis) checks.redis = await check(() => services.redis!.ping());
    const ready = Object.values(checks).every((v) => v === 'ok');
    if (!ready) reply.status(503).header('retry-after', '5');
    return { status: ready ? 'ok' : 'unavailable', checks };
  });
}
