// Subscriptions over Server-Sent Events (docs/graphql.md, Live events): graphql-yoga's "distinct
// connections" SSE (a POST or GET to /graphql with Accept: text/event-stream), with one
// addition: each `next` carries `id: <position>` of the event it delivers, so an EventSource
// (or any client) that reconnects sends it back as Last-Event-ID and resumes where it stopped.
// The frames are yoga's own otherwise (`event: next` / `event: complete`), so graphql-sse
// clients read them unchanged.
import type { ExecutionResult, GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Context } from '../schema/context.js';
import { lastDeliveredPosition } from '../schema/events/index.js';

const EVENT_ID = Symbol('sse event id');
type Tagged = ExecutionResult & { [EVENT_ID]?: string };

/** A comment line every so often keeps proxies and load balancers from closing an idle stream. */
const KEEP_ALIVE_MS = 15_000;

type SetResultProcessor = Parameters<NonNullable<Plugin['onResultProcess']>>[0]['setResultProcessor'];
type ResultProcessor = Parameters<SetResultProcessor>[0];

function stringify(result: Tagged): string {
  // Only what GraphQL answers: data, errors (masked already) and extensions, never internals.
  const { data, errors, extensions } = result;
  const { http: _http, ...ext } = (extensions ?? {}) as Record<string, unknown>;
  return JSON.stringify({
    ...(data !== undefined ? { data } : {}),
    ...(errors?.length ? { errors } : {}),
    ...(Object.keys(ext).length ? { extensions: ext } : {}),
  });
}

const processEventStream =
  (formatError: (err: unknown) => GraphQLError): ResultProcessor =>
  (result, fetchAPI) => {
    const iterator = (result as AsyncIterable<Tagged>)[Symbol.asyncIterator]();
    const encoder = new fetchAPI.TextEncoder();
    let keepAlive: NodeJS.Timeout | undefined;
    const stream = new fetchAPI.ReadableStream<Uint8Array>({
      start(controller) {
        // A first byte at once: some clients and proxies wait for one before showing the stream.
        controller.enqueue(encoder.encode(':\n\n'));
        keepAlive = setInterval(() => {
          if (controller.desiredSize === null) clearInterval(keepAlive);
          else if (controller.desiredSize > 0) controller.enqueue(encoder.encode(':\n\n'));
        }, KEEP_ALIVE_MS);
      },
      async pull(controller) {
        try {
          const next = await iterator.next();
          if (next.done) {
            clearInterval(keepAlive);
            controller.enqueue(encoder.encode('event: complete\ndata:\n\n'));
            controller.close();
            return;
          }
          const id = next.value[EVENT_ID];
          controller.enqueue(
            encoder.encode(`${id ? `id: ${id}\n` : ''}event: next\ndata: ${stringify(next.value)}\n\n`),
          );
        } catch (err) {
          // The subscription broke off (its credential was revoked, it fell too far behind, the
          // database failed): the error as GraphQL gives it (its code says whether to reconnect
          // with Last-Event-ID), then the end of the stream.
          clearInterval(keepAlive);
          const error = stringify({ errors: [formatError(err)] });
          controller.enqueue(encoder.encode(`event: next\ndata: ${error}\n\nevent: complete\ndata:\n\n`));
          controller.close();
        }
      },
      async cancel() {
        clearInterval(keepAlive);
        await iterator.return?.();
      },
    });
    return new fetchAPI.Response(stream, {
      status: 200,
      headers: {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'keep-alive',
        // Proxies such as nginx would otherwise buffer the stream.
        'x-accel-buffering': 'no',
      },
    });
  };

// Whether the request's Accept header takes `type`, wildcards included (any type, or `text/*`
// for an event stream); no header at all stands for any type, as yoga reads it.
function accepts(request: Request, type: string): boolean {
  const [pre, suf] = type.split('/');
  return (request.headers.get('accept') || '*/*')
    .toLowerCase()
    .split(',')
    .some((entry) => {
      const [asked, suffix] = (entry.split(';')[0] ?? '').trim().split('/');
      return (asked === '*' || asked === pre) && (suffix === '*' || suffix === suf);
    });
}

/**
 * A streamed answer (a subscription, or a query with `@defer`/`@stream`) whose request accepts
 * none of its media types (only `application/json`, say) is answered at once, 406 with a GraphQL
 * error body saying what to send, rather than yoga's empty 406 (a `null` body a client cannot
 * explain). Its stream, already started, is ended.
 */
const notAcceptable =
  (iterable: AsyncIterable<unknown>, message: string, accept: string): ResultProcessor =>
  async (_result, fetchAPI) => {
    await iterable[Symbol.asyncIterator]().return?.();
    return new fetchAPI.Response(JSON.stringify({ errors: [{ message, extensions: { code: 'BAD_REQUEST' } }] }), {
      status: 406,
      headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', accept },
    });
  };

const SUBSCRIPTION_NOT_ACCEPTED =
  'A subscription is answered as a stream of Server-Sent Events: send the header Accept: text/event-stream';
const INCREMENTAL_NOT_ACCEPTED =
  'An operation with @defer or @stream is answered in parts: send the header Accept: multipart/mixed or Accept: text/event-stream (or leave out the directives)';

/**
 * The SSE answer of a subscription, each event's position as its `id:`. `formatError` turns an
 * error that ends a running stream into what GraphQL answers (src/http/graphql.ts, maskError).
 */
export const eventStreamWithIds = (formatError: (err: unknown) => GraphQLError): Plugin<Record<string, unknown>> => {
  // The requests of this instance that run a subscription, so an incremental (@defer) answer
  // keeps yoga's own processors; weakly held, so nothing outlives its request.
  const subscriptions = new WeakSet<Request>();
  return {
    onSubscribe({ args }) {
      const ctx = args.contextValue as unknown as Context & { request?: Request };
      if (ctx.request) subscriptions.add(ctx.request);
      return {
        onSubscribeResult: () => ({
          onNext({ result, setResult }) {
            const position = lastDeliveredPosition(ctx);
            if (position !== undefined) setResult(Object.assign({ ...result }, { [EVENT_ID]: position.toString() }));
          },
        }),
      };
    },
    // After yoga's own choice (user plugins run after it): a live stream gets the processor above
    // whenever the request accepts an event stream (any type included: yoga's own would send
    // no byte before the first event), and a clear refusal when it accepts none.
    onResultProcess(payload) {
      const { result, request } = payload;
      if (!(Symbol.asyncIterator in Object(result))) return;
      const iterable = result as AsyncIterable<unknown>;
      // An incremental (@defer/@stream) answer keeps yoga's multipart/mixed or event stream; only
      // a request that accepts neither is told what to send.
      if (!subscriptions.has(request)) {
        if (!payload.resultProcessor)
          payload.setResultProcessor(
            notAcceptable(iterable, INCREMENTAL_NOT_ACCEPTED, 'multipart/mixed, text/event-stream'),
            'application/json',
          );
        return;
      }
      if (accepts(request, 'text/event-stream'))
        payload.setResultProcessor(processEventStream(formatError), 'text/event-stream');
      else
        payload.setResultProcessor(
          notAcceptable(iterable, SUBSCRIPTION_NOT_ACCEPTED, 'text/event-stream'),
          'application/json',
        );
    },
  };
};
