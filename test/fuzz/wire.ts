// HTTP/1.1 by hand over a real socket, so the fuzzer's bytes reach the server exactly as
// written: an HTTP client (or app.inject's WHATWG URL parsing) would re-encode `%zz`, drop
// control characters, resolve `..` and refuse invalid UTF-8 in a body, and never send what a
// hostile client can.
import { connect } from 'node:net';

export interface WireRequest {
  method: string;
  /** The request target exactly as sent (path and query, already encoded or not). */
  target: string;
  headers: Array<[string, string]>;
  body: Buffer | null;
}

export interface WireResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export class NoAnswer extends Error {}

function decodeChunked(raw: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = raw.indexOf('\r\n', at);
    if (eol < 0) break;
    const size = parseInt(raw.subarray(at, eol).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(raw.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

function parse(raw: Buffer): WireResponse {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) throw new NoAnswer(`an incomplete answer: ${JSON.stringify(raw.subarray(0, 200).toString('latin1'))}`);
  const [statusLine, ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1]);
  if (!status) throw new NoAnswer(`not an HTTP status line: ${JSON.stringify(statusLine)}`);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = raw.subarray(end + 4);
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) body = decodeChunked(body);
  else if (headers['content-length'] !== undefined) body = body.subarray(0, Number(headers['content-length']));
  return { status, headers, body };
}

/** One request on a connection of its own (`Connection: close`): the answer is what arrives until the server closes. */
export function send(port: number, req: WireRequest, timeoutMs = 30_000): Promise<WireResponse> {
  const head = [`${req.method} ${req.target} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close'];
  for (const [name, value] of req.headers) head.push(`${name}: ${value}`);
  if (req.body) head.push(`Content-Length: ${req.body.length}`);
  // latin1 keeps every byte the generator chose for the head (raw UTF-8 in a path included).
  const bytes = Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), req.body ?? Buffer.alloc(0)]);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1');
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new NoAnswer(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('data', (d) => chunks.push(d));
    // The server may answer and close before it has read the whole body (a 413, a parser
    // error): a write error then is not a failure, the answer already received is what counts.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const raw = Buffer.concat(chunks);
      if (raw.length === 0) return reject(new NoAnswer('the server closed the connection without an answer'));
      try {
        resolve(parse(raw));
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
    socket.write(bytes);
  });
}
