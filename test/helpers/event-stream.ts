// A Server-Sent Events client for tests: fetch on a real socket, frames parsed as the SSE spec
// says (fields up to a blank line; lines starting with ':' are comments).
export interface Frame {
  id?: string;
  event?: string;
  data: string;
}

export interface EventStream {
  status: number;
  headers: Headers;
  /** The next frame (comments skipped); rejects after `timeoutMs`. */
  next(timeoutMs?: number): Promise<Frame>;
  /** The next `next` frame's JSON. */
  nextResult(timeoutMs?: number): Promise<{ id?: string; body: any }>;
  close(): void;
}

export async function openEventStream(
  url: string,
  init: { headers?: Record<string, string>; body?: unknown; method?: 'GET' | 'POST' },
): Promise<EventStream> {
  const abort = new AbortController();
  const res = await fetch(url, {
    method: init.method ?? 'POST',
    headers: {
      accept: 'text/event-stream',
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...init.headers,
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    signal: abort.signal,
  });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const frames: Frame[] = [];
  // One read in flight at a time: a read that outlived a timeout is awaited by the next call.
  let reading: ReturnType<typeof reader.read> | null = null;

  const parse = () => {
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end < 0) return;
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const frame: Frame = { data: '' };
      let fields = 0;
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        fields++;
        if (field === 'data') data.push(value);
        else if (field === 'id') frame.id = value;
        else if (field === 'event') frame.event = value;
      }
      frame.data = data.join('\n');
      if (fields) frames.push(frame);
    }
  };

  const next = async (timeoutMs = 10_000): Promise<Frame> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const frame = frames.shift();
      if (frame) return frame;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('no SSE frame within the time allowed');
      let timer: NodeJS.Timeout | undefined;
      reading ??= reader.read();
      const chunk = await Promise.race([
        reading,
        new Promise<'timeout'>((r) => {
          timer = setTimeout(() => r('timeout'), left);
        }),
      ]).finally(() => clearTimeout(timer));
      if (chunk === 'timeout') continue;
      reading = null;
      if (chunk.done) throw new Error('the stream ended');
      buffer += decoder.decode(chunk.value, { stream: true });
      parse();
    }
  };

  return {
    status: res.status,
    headers: res.headers,
    next,
    async nextResult(timeoutMs) {
      const frame = await next(timeoutMs);
      if (frame.event !== 'next') throw new Error(`expected a next frame, got ${JSON.stringify(frame)}`);
      return { id: frame.id, body: JSON.parse(frame.data) };
    },
    close() {
      abort.abort();
    },
  };
}
