// The part of autocannon 9's programmatic API the benchmark uses (the package ships no types;
// a local declaration saves a dependency for one script).
declare module 'autocannon' {
  namespace autocannon {
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string;
      setupRequest?: (req: Request, context: Record<string, unknown>) => Request;
    }
    interface Options {
      url: string;
      connections?: number;
      duration?: number;
      requests?: Request[];
    }
    interface Histogram {
      average: number;
      mean: number;
      total: number;
      min: number;
      max: number;
      p50: number;
      p90: number;
      p99: number;
    }
    interface Result {
      duration: number;
      errors: number;
      timeouts: number;
      non2xx: number;
      latency: Histogram;
      requests: Histogram;
      statusCodeStats?: Record<string, { count: number }>;
    }
  }
  interface Instance extends PromiseLike<autocannon.Result> {
    on(
      event: 'response',
      listener: (client: unknown, statusCode: number, bytes: number, responseTimeMs: number) => void,
    ): this;
  }
  function autocannon(options: autocannon.Options): Instance;
  export = autocannon;
}
