// Prometheus metrics at /metrics: request counts and latency by route pattern and status.
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

export function registerMetrics(app: FastifyInstance): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by method, route pattern and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by method, route pattern and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  // One pair of labelled children per method, route and status, looked up by a string key:
  // prom-client hashes a label object on every inc/observe otherwise (npm run bench profile).
  const series = new Map<string, { count: Counter.Internal; latency: Histogram.Internal<string> }>();
  app.addHook('onResponse', async (req, reply) => {
    // The route pattern, never the raw URL, so ids do not explode the label set.
    const route = req.routeOptions.url ?? 'unmatched';
    const key = `${req.method} ${reply.statusCode} ${route}`;
    let s = series.get(key);
    if (!s) {
      const labels = { method: req.method, route, status: String(reply.statusCode) };
      s = { count: requests.labels(labels), latency: duration.labels(labels) };
      series.set(key, s);
    }
    s.count.inc();
    s.latency.observe(reply.elapsedTime / 1000);
  });
  app.get('/metrics', { schema: { hide: true } }, async (_req, reply) => {
    reply.type(registry.contentType);
    return registry.metrics();
  });
  return registry;
}
