// Liveness and readiness (docs/scaling.md). Readiness checks what requests need: both databases and,
// when configured, Redis.
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Services } from '../services.js';

/**
 * 'ok', or a generic reason: /readyz answers anyone, and a driver's message can name hosts,
 * users and databases. The detail goes to the log.
 */
async function check(
  name: string,
  log: FastifyBaseLogger,
  fn: () => Promise<unknown>,
  timeoutMs = 2000,
): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  try {
    await Promise.race([
      fn(),
      new Promise((_, reject) => {
        timer = setTimeout(() => {
          timedOut = true;
          reject(new Error(`no answer within ${timeoutMs} ms`));
        }, timeoutMs);
      }),
    ]);
    return 'ok';
  } catch (err) {
    log.warn(
      { dependency: name, err: { message: (err as Error).message, code: (err as { code?: unknown }).code } },
      'readiness check failed',
    );
    return timedOut ? 'error: timed out' : 'error: unavailable';
  } finally {
    clearTimeout(timer);
  }
}

export function registerHealth(app: FastifyInstance, services: Services): void {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (req, reply) => {
    const checks: Record<string, string> = {
      database: await check('database', req.log, () => services.dbs.ping()),
    };
    if (services.redis) checks.redis = await check('redis', req.log, () => services.redis!.ping());
    const ready = Object.values(checks).every((v) => v === 'ok');
    if (!ready) reply.status(503).header('retry-after', '5');
    return { status: ready ? 'ok' : 'unavailable', checks };
  });
}
