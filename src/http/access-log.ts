// The process's access log on stdout (README, Configuration). By default (`ACCESS_LOG=errors`)
// a request writes one line only when its answer is outside 2xx or it took at least
// ACCESS_LOG_SLOW_MS, so a health check or a working client leaves stdout quiet; `all` keeps
// Fastify's two lines a request. Request logs (src/http/request-logs.ts, REQUEST_LOGS) are a
// separate record, kept per company in the database, and unaffected.
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Config } from '../config.js';

class ErrorsAndSlowAccessLog extends LogController {
  constructor(private readonly slowMs: number) {
    super();
  }

  override incomingRequest(): void {
    // The completion line below carries the request: one line a logged request.
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const status = reply.statusCode;
    const responseTime = reply.elapsedTime;
    if (error) {
      reply.log.error({ req: request, res: reply, err: error, responseTime }, 'request errored');
    } else if (status < 200 || status >= 300 || responseTime >= this.slowMs) {
      reply.log.info({ req: request, res: reply, responseTime }, 'request completed');
    }
  }
}

/** The access log the configuration asks for, as Fastify's `logController` option. */
export function accessLog(config: Pick<Config, 'ACCESS_LOG' | 'ACCESS_LOG_SLOW_MS'>): LogController {
  return config.ACCESS_LOG === 'all' ? new LogController() : new ErrorsAndSlowAccessLog(config.ACCESS_LOG_SLOW_MS);
}
