// For the SDK's tests (sdk/): the app listening on a real socket, the operations of the
// document it serves, and a fetch that records which operation each request of the SDK
// reached and what it answered. The recording is the test's, not the SDK's.

export interface DocOperation {
  operationId: string;
  method: string;
  path: string;
  pattern: RegExp;
}

interface Doc {
  paths: Record<string, Record<string, { operationId?: string }>>;
}

/** The document's /api operations, each with a pattern matching its concrete paths. */
export function documentOperations(doc: Doc): DocOperation[] {
  const ops: DocOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!path.startsWith('/api/')) continue;
    for (const [method, op] of Object.entries(item)) {
      if (!op.operationId) continue;
      const pattern = new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
      ops.push({ operationId: op.operationId, method: method.toUpperCase(), path, pattern });
    }
  }
  return ops;
}

export interface Call {
  operationId: string | undefined;
  method: string;
  url: string;
  status: number | 'network error';
  headers: Record<string, string>;
  /** Date.now() when the request was sent and when its answer (or failure) came. */
  sentAt: number;
  answeredAt: number;
  retryAfter: string | null;
}

/** A fetch that passes every request on and keeps what it was (matched to an operation). */
export function recordingFetch(ops: DocOperation[], calls: Call[]): typeof fetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = (init?.method ?? 'GET').toUpperCase();
    const op = ops.find((o) => o.method === method && o.pattern.test(url.pathname));
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    const sentAt = Date.now();
    const base = { operationId: op?.operationId, method, url: url.href, headers, sentAt };
    try {
      const res = await fetch(input, init);
      calls.push({ ...base, status: res.status, answeredAt: Date.now(), retryAfter: res.headers.get('retry-after') });
      return res;
    } catch (e) {
      calls.push({ ...base, status: 'network error', answeredAt: Date.now(), retryAfter: null });
      throw e;
    }
  };
}
