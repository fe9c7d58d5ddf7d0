// Types of each operation, derived from the generated OpenAPI types: a changed document changes
// them, so the SDK's typecheck (and yours) breaks where a call no longer fits.
import type { operations } from './generated/openapi.js';
import { OPERATIONS } from './generated/operations.js';
import type { List } from './pagination.js';

export { OPERATIONS };
/** Every operation of the document, by its `operationId`. */
export type OperationId = keyof operations & keyof typeof OPERATIONS;
export type Operation<K extends OperationId> = operations[K];

type RouteOf<K extends OperationId> = (typeof OPERATIONS)[K];
/** One string argument per `{param}` of the path, in the path's order. */
type PathArgs<P extends string> = P extends `${string}{${string}}${infer Rest}` ? [string, ...PathArgs<Rest>] : [];

type JsonOf<B> = B extends { content: { 'application/json': infer J } } ? J : never;
/** The JSON body an operation takes (never when it takes none). */
export type RequestBody<K extends OperationId> = JsonOf<NonNullable<operations[K]['requestBody']>>;
/** The query parameters an operation takes (never when it takes none). */
export type QueryParams<K extends OperationId> = NonNullable<operations[K]['parameters']['query']>;

type BodyArg<K extends OperationId> = [RequestBody<K>] extends [never]
  ? []
  : undefined extends operations[K]['requestBody']
    ? [body?: RequestBody<K>]
    : [body: RequestBody<K>];
type QueryArg<K extends OperationId> = [QueryParams<K>] extends [never]
  ? []
  : object extends QueryParams<K>
    ? [query?: QueryParams<K>]
    : [query: QueryParams<K>];

/** The arguments of an operation's method: path parameters, then its body or its query. */
export type Args<K extends OperationId> = [
  ...PathArgs<RouteOf<K>['path']>,
  ...(BodyArg<K> extends [] ? QueryArg<K> : BodyArg<K>),
];

type SuccessEnvelope<K extends OperationId> = JsonOf<operations[K]['responses'][200]>;
/** What an operation answers in `data`. */
export type ResponseData<K extends OperationId> = SuccessEnvelope<K> extends { data: infer D } ? D : never;
/** A list's item type. */
export type Item<K extends OperationId> = ResponseData<K> extends Array<infer T> ? T : never;
/** A list operation's method answers a List (iterate it, or take one page); the others their data. */
export type Result<K extends OperationId> =
  ResponseData<K> extends unknown[] ? List<Item<K>> : Promise<ResponseData<K>>;

/** Options of one call, after its arguments. */
export interface RequestOptions {
  /** The `Idempotency-Key` of a POST; by default a new UUID per call, reused by its retries. */
  idempotencyKey?: string;
  /** `API-Version` for this call (overrides the client's). */
  apiVersion?: ApiVersion;
  /** Cancels the call, retries included. */
  signal?: AbortSignal;
  /** Extra request headers (`X-Request-Id` to line up your logs with ours). */
  headers?: Record<string, string>;
  /** Retries after the first attempt (overrides the client's). */
  maxRetries?: number;
  /** Milliseconds one attempt may take (overrides the client's). */
  timeoutMs?: number;
}

/** The versions the document lists for the `API-Version` header. */
export type ApiVersion = NonNullable<NonNullable<operations['getMe']['parameters']['header']>['API-Version']>;

export type Method<K extends OperationId> = (...args: [...Args<K>, options?: RequestOptions]) => Result<K>;
