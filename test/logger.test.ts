// Logs (docs/scaling.md, issue 2 point 13): JSON lines (pino) carrying the request id; keys, tokens,
// secrets, passwords and card numbers never appear, wherever a request put them (headers,
// query string, body, GraphQL variables) and whatever our own code logs, at debug level.
import { Writable } from 'node:stream';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { bearer, createAccountWithKeys } from './helpers/factories.js';

const lines: string[] = [];
const sink = new Writable({
  write(chunk, _enc, cb) {
    lines.push(...String(chunk).split('\n').filter(Boolean));
    cb();
  },
});

let t: TestApp;
let w: Awaited<ReturnType<typeof createAccountWithKeys>>;

const PASSWORD = 'hunter2-Correct-Horse-9731';
const CARD = '4242424242424242';
const CARD_SPACED = '4000 0000 0000 0002';
const WEBHOOK_SECRET = 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LTEyMzQ=';
const OAUTH_TOKEN = 'svc_at_live_AAAABBBBCCCCDDDDEEEEFFFFGGGGHHHH123456';
const SESSION = 'sess-0123456789abcdef0123456789abcdef';

beforeAll(async () => {
  // ACCESS_LOG=all: Fastify's two lines for every request (the default logs only failed or slow ones).
  t = await createTestApp({ env: { LOG_LEVEL: 'debug', ACCESS_LOG: 'all' }, logger: createLogger('debug', sink) });
  w = await createAccountWithKeys(t.dbs);
});
afterAll(async () => {
  await t?.close();
});

function secrets(): string[] {
  const keys = [w.liveKey.key, w.testKey.key];
  return [
    ...keys,
    // The random part alone, in case a prefix was stripped but the secret kept.
    ...keys.map((k) => k.slice(12, 40)),
    PASSWORD,
    w.password,
    CARD,
    CARD_SPACED,
    WEBHOOK_SECRET,
    WEBHOOK_SECRET.slice(6),
    OAUTH_TOKEN.slice(12),
    SESSION,
  ];
}

describe('logs', () => {
  it('carry the request id and no secret, at debug level', async () => {
    const ids: string[] = [];
    const send = async (opts: InjectOptions) => {
      const res = await t.app.inject(opts);
      ids.push(String(res.headers['x-request-id']));
      return res;
    };
    // Headers.
    expect(
      (
        await send({
          method: 'GET',
          url: '/api/v1/me',
          headers: { ...bearer(w.liveKey.key), cookie: `session=${SESSION}`, 'x-api-key': w.testKey.key },
        })
      ).statusCode,
    ).toBe(200);
    expect(
      (
        await send({
          method: 'GET',
          url: '/api/v1/me',
          headers: { authorization: `Basic ${Buffer.from(`me:${PASSWORD}`).toString('base64')}` },
        })
      ).statusCode,
    ).toBe(401);
    expect(
      (await send({ method: 'GET', url: '/api/v1/me', headers: { authorization: `Bearer ${OAUTH_TOKEN}` } }))
        .statusCode,
    ).toBe(401);
    // Query string.
    expect(
      (
        await send({
          method: 'GET',
          url: `/api/v1/me?api_key=${w.liveKey.key}&password=${PASSWORD}&card=${CARD}&secret=${encodeURIComponent(WEBHOOK_SECRET)}`,
          headers: bearer(w.testKey.key),
        })
      ).statusCode,
    ).toBe(200);
    expect(
      (await send({ method: 'GET', url: `/api/v1/unknown/${w.liveKey.key}?token=${OAUTH_TOKEN}` })).statusCode,
    ).toBe(404);
    // Bodies: refused fields, malformed JSON around a secret, a wrong content type.
    expect(
      (
        await send({
          method: 'PATCH',
          url: '/api/v1/me',
          headers: bearer(w.testKey.key),
          payload: {
            password: PASSWORD,
            card: { number: CARD, cvc: '123' },
            token: w.liveKey.key,
            secret: WEBHOOK_SECRET,
          },
        })
      ).statusCode,
    ).toBe(400);
    expect(
      (
        await send({
          method: 'PATCH',
          url: '/api/v1/me',
          headers: { ...bearer(w.testKey.key), 'content-type': 'application/json' },
          body: `{"password":"${PASSWORD}","card":"${CARD}",`,
        })
      ).statusCode,
    ).toBe(400);
    expect(
      (
        await send({
          method: 'PATCH',
          url: '/api/v1/me',
          headers: { ...bearer(w.testKey.key), 'content-type': 'text/plain' },
          body: `password=${PASSWORD}&card=${CARD}`,
        })
      ).statusCode,
    ).toBe(400);
    expect(
      (
        await send({
          method: 'PATCH',
          url: '/api/v1/me',
          headers: bearer(w.testKey.key),
          payload: { name: `Card ${CARD_SPACED} ${PASSWORD}`, phone: CARD },
        })
      ).statusCode,
    ).toBe(400);
    // GraphQL: secrets in the document, in variables, and in a failing mutation.
    expect(
      (
        await send({
          method: 'POST',
          url: '/graphql',
          headers: bearer(w.testKey.key),
          payload: {
            query: `query Q($p: String) { me { name } }`,
            variables: { p: PASSWORD, card: CARD, key: w.liveKey.key },
          },
        })
      ).statusCode,
    ).toBe(200);
    await send({
      method: 'POST',
      url: '/graphql',
      headers: bearer(w.testKey.key),
      payload: { query: `mutation { updateMe(input: { name: "${PASSWORD}", phone: "${CARD}" }) { name } }` },
    });
    await send({
      method: 'POST',
      url: '/graphql',
      headers: bearer(w.testKey.key),
      payload: { query: `{ me { name ${w.liveKey.key} } }` },
    });

    // Our own code logging objects and errors that carry secrets.
    const log = t.services.logger.child({ reqId: 'req_manual' });
    log.info(
      {
        password: PASSWORD,
        card: { number: CARD, cvc: '123' },
        token: OAUTH_TOKEN,
        apiKey: w.liveKey.key,
        headers: { authorization: `Bearer ${w.liveKey.key}` },
      },
      'object with secrets',
    );
    log.info(
      { input: { customer: { password: PASSWORD }, payment: { card: { number: CARD } } } },
      'deeply nested secrets',
    );
    log.warn(`a message naming ${w.liveKey.key} and ${WEBHOOK_SECRET} and card ${CARD} / ${CARD_SPACED}`);
    log.error(
      { err: new Error(`failed for ${w.testKey.key} with card ${CARD}`) },
      'an error with secrets in its message',
    );
    // A real Prisma error whose message quotes the query's arguments.
    const prismaError = await t.dbs.live.prisma.account
      .create({ data: { id: 'not-an-object-id', email: w.email, passwordHash: PASSWORD } as never })
      .catch((e: unknown) => e);
    expect(prismaError).toBeInstanceOf(Error);
    log.error({ err: prismaError }, 'database error');

    await new Promise((r) => setImmediate(r));
    const output = lines.join('\n');
    // The database error was logged, with its message (minus the secret).
    expect(lines.find((l) => l.includes('database error'))).toContain('"message"');
    // Every line is JSON.
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    expect(lines.length).toBeGreaterThan(20);
    // The request ids are there: each request's lines carry it.
    for (const id of ids) {
      const own = lines.map((l) => JSON.parse(l)).filter((l) => l.reqId === id);
      expect(own.length, id).toBeGreaterThanOrEqual(2);
      expect(own.some((l) => l.msg === 'incoming request' && l.req?.url?.startsWith('/'))).toBe(true);
      expect(own.some((l) => l.msg === 'request completed' && typeof l.res?.statusCode === 'number')).toBe(true);
    }
    const leaks = secrets().filter((s) => output.includes(s));
    expect(leaks, leaks.map((s) => lines.find((l) => l.includes(s))).join('\n')).toEqual([]);
    // Redaction is visible, not silent deletion.
    expect(output).toContain('[REDACTED]');
  });
});

describe('secret URLs', () => {
  it('a manage-link token in a request path or a logged string is scrubbed to its prefix', async () => {
    const token = `svc_ml_${Buffer.alloc(41, 7).toString('base64url')}`;
    lines.length = 0;
    await t.app.inject({ method: 'GET', url: `/b/${token}` });
    await t.app.inject({ method: 'GET', url: `/b/${token}/cancel?x=1` });
    t.services.logger.info({ link: `https://book.example.com/b/${token}` }, `opened https://x/b/${token}`);
    const out = lines.join('\n');
    expect(out).toContain('svc_ml_[REDACTED]');
    expect(out).not.toContain(token.slice(7));
    expect(out).not.toContain(token.slice(20, 40));
  });
});
