// From an abstract request to the bytes on the wire, with what the fuzzer has learnt from the
// app's answers: the ids of records it has shown (per mode and kind) and the slots it offered.
import type { Operation, AbstractRequest, QueryPart } from './operations.js';
import { kindOf } from './schema-arbitrary.js';
import { Cursor, hexOfLength, Obj, PoolId, Raw, Time, Verbatim, type Value } from './values.js';
import type { WireRequest } from './wire.js';

type Mode = 'live' | 'test';
const POOL_CAP = 300;

export class Pools {
  private readonly ids: Record<Mode, Map<string, string[]>> = { live: new Map(), test: new Map() };
  private readonly slots: string[] = [];
  private readonly cursors = new Map<string, string[]>();

  add(mode: Mode, kind: string, id: string): void {
    let list = this.ids[mode].get(kind);
    if (!list) this.ids[mode].set(kind, (list = []));
    if (list.includes(id)) return;
    if (list.length >= POOL_CAP) list.splice(0, 1);
    list.push(id);
  }

  /** An id of a record of `kind` ("webhookdelivery" also takes what was learnt as "delivery"); of any kind when none is known. */
  id(mode: Mode, kind: string, pick: number): string {
    const pools = this.ids[mode];
    const matching = [...pools.entries()]
      .filter(([k]) => k === kind || k.endsWith(kind) || kind.endsWith(k))
      .flatMap(([, v]) => v);
    const list = matching.length ? matching : [...pools.values()].flat();
    return list.length ? list[pick % list.length]! : hexOfLength(24, pick);
  }

  addSlot(time: string): void {
    if (this.slots.includes(time)) return;
    if (this.slots.length >= POOL_CAP) this.slots.splice(0, 1);
    this.slots.push(time);
  }

  slot(pick: number): string | undefined {
    return this.slots.length ? this.slots[pick % this.slots.length] : undefined;
  }

  addCursor(mode: Mode, path: string, cursor: string): void {
    const key = `${mode} ${path}`;
    const list = this.cursors.get(key) ?? [];
    if (list.length >= POOL_CAP) list.splice(0, 1);
    list.push(cursor);
    this.cursors.set(key, list);
  }

  cursor(mode: Mode, path: string, pick: number): string | undefined {
    const list = this.cursors.get(`${mode} ${path}`);
    return list?.length ? list[pick % list.length] : undefined;
  }

  size(): number {
    return [...this.ids.live.values(), ...this.ids.test.values()].reduce((n, l) => n + l.length, 0);
  }

  /**
   * Learns from a 200 answer: `_id`s of records (of the kind the route serves), every `fooId`
   * and `fooIds` field, and every future `startTime` (slots and sessions the app offered).
   */
  learn(mode: Mode, routeKind: string, data: unknown): void {
    const walk = (v: unknown, kind: string): void => {
      if (Array.isArray(v)) return v.forEach((x) => walk(x, kind));
      if (!v || typeof v !== 'object') return;
      for (const [k, x] of Object.entries(v)) {
        if (k === '_id' && typeof x === 'string') this.add(mode, kind, x);
        else if (/Ids?$/.test(k) && typeof x === 'string' && /^[0-9a-f]{24}$/.test(x)) this.add(mode, kindOf(k), x);
        else if (/Ids$/.test(k) && Array.isArray(x))
          x.forEach((id) => typeof id === 'string' && this.add(mode, kindOf(k), id));
        else if (k === 'startTime' && typeof x === 'string' && Date.parse(x) > Date.now() + 3_600_000) this.addSlot(x);
        else if (x && typeof x === 'object') walk(x, kindOf(k));
      }
    };
    walk(data, routeKind);
  }
}

/** The kind of record a route answers with: `/employees/{id}/time-off` → timeoff, `/bookings/{id}/cancel` → booking. */
export function routeKind(op: Operation, ops: Operation[]): string {
  const segs = op.path.split('/');
  const last = segs[segs.length - 1]!;
  const literal = (s: string) => !s.startsWith('{');
  if (literal(last) && ops.some((o) => o.path.startsWith(`${op.path}/{`))) return kindOf(last);
  for (let i = segs.length - 1; i > 0; i--)
    if (!literal(segs[i]!) && literal(segs[i - 1]!)) return kindOf(segs[i - 1]!);
  return kindOf(last);
}

/** Percent-encodes the UTF-8 bytes of `s` (lone surrogates become U+FFFD, as any encoder does). */
export function pct(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Text as UTF-8 bytes, each written as one latin1 character (what `send` puts on the wire). */
const wireText = (s: string) => Buffer.from(s, 'utf8').toString('latin1');

export interface Keys {
  test: string;
  live: string;
}

export class Resolver {
  /** The last time written into the request being resolved. */
  private previous: Date | null = null;

  constructor(
    private readonly ops: Operation[],
    private readonly pools: Pools,
    private readonly keys: Keys,
  ) {}

  mode(req: AbstractRequest): Mode {
    return req.auth === 'live' ? 'live' : 'test';
  }

  /** A concrete JSON-able value: ids and times filled in. */
  private concrete(v: Value, mode: Mode): Value {
    if (v instanceof PoolId)
      return this.pools.id(v.otherMode ? (mode === 'live' ? 'test' : 'live') : mode, v.kind, v.pick);
    if (v instanceof Time) return this.time(v);
    if (Array.isArray(v)) return v.map((x) => this.concrete(x, mode));
    if (v instanceof Obj) return new Obj(v.entries.map(([k, x]) => [k, this.concrete(x, mode)] as const));
    return v;
  }

  private time(t: Time): string {
    const known = t.known > 0 ? this.pools.slot(t.known) : undefined;
    const base = t.after && this.previous ? this.previous.getTime() : Math.floor(Date.now() / 3_600_000) * 3_600_000;
    const d = known ? new Date(known) : new Date(base + t.hours * 3_600_000 + t.minute * 60_000);
    this.previous = d;
    const iso = d.toISOString();
    // The same instant in the forms RFC 3339 allows: with or without fractions, with an offset.
    const shifted = (mins: number) => new Date(d.getTime() + mins * 60_000).toISOString().slice(0, 19);
    switch (t.style) {
      case 1:
        return `${iso.slice(0, 19)}Z`;
      case 2:
        return `${shifted(120)}+02:00`;
      case 3:
        return `${iso.slice(0, 23)}456Z`;
      case 4:
        return `${shifted(-330)}.000000000-05:30`;
      default:
        return iso;
    }
  }

  json(v: Value, mode: Mode): string {
    const c = this.concrete(v, mode);
    const write = (x: Value): string => {
      if (x instanceof Raw) return x.text;
      if (x instanceof Obj) return `{${x.entries.map(([k, y]) => `${JSON.stringify(k)}:${write(y)}`).join(',')}}`;
      if (Array.isArray(x)) return `[${x.map(write).join(',')}]`;
      return JSON.stringify(x) ?? 'null';
    };
    return write(c);
  }

  /** The text a value takes in a path segment or query string (before encoding). */
  private scalar(v: Value, mode: Mode): string {
    const c = this.concrete(v, mode);
    if (typeof c === 'string') return c;
    if (c instanceof Raw) return c.text;
    if (c === null || typeof c !== 'object') return String(c);
    return this.json(c, mode);
  }

  private segment(v: Value | Verbatim, mode: Mode): string {
    return v instanceof Verbatim ? wireText(v.text) : pct(this.scalar(v, mode));
  }

  private queryString(op: Operation, parts: QueryPart[], mode: Mode): string {
    const out = parts.flatMap((p) => {
      if (p instanceof Verbatim) return [wireText(p.text)];
      if (p.value === undefined) return [pct(p.key)];
      if (p.value instanceof Cursor) {
        const cursor = this.pools.cursor(mode, op.path, p.value.pick);
        return cursor === undefined ? [] : [`${pct(p.key)}=${pct(cursor)}`];
      }
      return [`${pct(p.key)}=${this.segment(p.value, mode)}`];
    });
    return out.length ? `?${out.join('&')}` : '';
  }

  private body(req: AbstractRequest, mode: Mode): Buffer | null {
    const b = req.body;
    switch (b.kind) {
      case 'none':
        return null;
      case 'json':
        return Buffer.from(this.json(b.value, mode), 'utf8');
      case 'text':
        return Buffer.from(b.text, 'utf8');
      case 'deep':
        return Buffer.from(b.open.repeat(b.depth), 'utf8');
      case 'bytes': {
        const text = Buffer.from(this.json(b.value, mode), 'utf8');
        // Into a string value when there is one (a quote after `at`), so the bytes are text the parser must judge.
        const quotes = [...text.keys()].filter((i) => text[i] === 0x22);
        const at = quotes.length ? quotes[b.at % quotes.length]! + 1 : b.at % (text.length + 1);
        return Buffer.concat([text.subarray(0, at), Buffer.from(b.bytes), text.subarray(at)]);
      }
    }
  }

  wire(req: AbstractRequest): WireRequest {
    const op = this.ops[req.op]!;
    const mode = this.mode(req);
    this.previous = null;
    let i = 0;
    const path = op.path.replace(/\{[^}]+\}/g, () => this.segment(req.path[i++] ?? '', mode));
    const body = this.body(req, mode);
    const headers: Array<[string, string]> = [];
    if (req.auth === 'test' || req.auth === 'live') headers.push(['Authorization', `Bearer ${this.keys[req.auth]}`]);
    else if (req.auth instanceof Verbatim) headers.push(['Authorization', wireText(req.auth.text)]);
    const contentType = req.contentType === 'default' ? (body ? 'application/json' : null) : req.contentType;
    if (contentType !== null) headers.push(['Content-Type', contentType]);
    if (req.idempotencyKey !== null) headers.push(['Idempotency-Key', wireText(req.idempotencyKey)]);
    for (const [k, v] of req.headers) headers.push([k, wireText(v)]);
    return {
      method: req.method ?? op.method,
      target: `${path}${this.queryString(op, req.query, mode)}`,
      headers,
      body,
    };
  }
}
