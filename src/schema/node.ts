// Global object identification (docs/graphql.md, Global ids): every record type implements
// `Node`, whose `id` is a global id naming its type and record, and `node(id:)` / `nodes(ids:)`
// refetch records by it, as Relay's refetchable fragments and normalised caches expect. Each
// record is read as its own field reads it: the same scope (INSUFFICIENT_SCOPE without it), only
// within the credential's company and mode (another company's id is NOT_FOUND, exactly as an id
// of no record), the sandbox e-mail log for test companies only. REST's ids stay `_id`.
import { queryFromInfo } from '@pothos/plugin-prisma';
import type { GraphQLResolveInfo } from 'graphql';
import { AppError } from '../errors.js';
import type { Scope } from '../auth/scopes.js';
import { isId } from '../ids.js';
import { builder, insufficientScope } from './builder.js';
import type { Context } from './context.js';

/** Where a loaded record says which type it is (resolveType); not enumerable, never answered. */
const NODE_TYPE = Symbol('node type');

type Row = { id: string } & Record<PropertyKey, unknown>;

interface NodeKind {
  /** The read scope of the type's own field (docs/oauth.md, Scopes). */
  scope: Scope;
  /** The Prisma model the record lives in, or none for the company itself. */
  model: string;
  /** Loaded with the document's selection of relations (plugin-prisma), or as plain rows. */
  prisma: boolean;
  /** A refusal before any read (the e-mail log of a live company). */
  guard?: (ctx: Context) => void;
}

const sandboxOnly = (ctx: Context) => {
  if (ctx.credential!.mode !== 'test') {
    throw new AppError(
      'FORBIDDEN',
      'The e-mail log exists for sandbox (test) companies only; live e-mail is sent, not logged',
    );
  }
};

// Every type that implements Node, with how its records are read. A type added here must name
// NodeInterface in its `interfaces` (test/schema/global-ids.test.ts checks both ways).
const NODE_KINDS: Readonly<Record<string, NodeKind>> = Object.freeze({
  Booking: { scope: 'bookings:read', model: 'booking', prisma: true },
  BookingSeries: { scope: 'bookings:read', model: 'bookingSeries', prisma: true },
  ClassSchedule: { scope: 'services:read', model: 'classSchedule', prisma: true },
  ClassSession: { scope: 'services:read', model: 'classSession', prisma: true },
  Closure: { scope: 'company:read', model: 'closure', prisma: true },
  Company: { scope: 'company:read', model: 'company', prisma: true },
  Customer: { scope: 'customers:read', model: 'customer', prisma: true },
  DateOverride: { scope: 'employees:read', model: 'dateOverride', prisma: true },
  Email: { scope: 'emails:read', model: 'email', prisma: false, guard: sandboxOnly },
  Employee: { scope: 'employees:read', model: 'employee', prisma: true },
  Event: { scope: 'events:read', model: 'event', prisma: false },
  ExternalCalendar: { scope: 'employees:read', model: 'externalCalendar', prisma: true },
  Location: { scope: 'company:read', model: 'location', prisma: true },
  Notification: { scope: 'bookings:read', model: 'notification', prisma: true },
  Payment: { scope: 'payments:read', model: 'payment', prisma: true },
  RequestLog: { scope: 'logs:read', model: 'requestLog', prisma: false },
  Resource: { scope: 'services:read', model: 'resource', prisma: true },
  Service: { scope: 'services:read', model: 'service', prisma: true },
  TestClock: { scope: 'company:read', model: 'testClock', prisma: true },
  TimeOff: { scope: 'employees:read', model: 'timeOff', prisma: true },
  Visit: { scope: 'bookings:read', model: 'visit', prisma: true },
  WebhookAttempt: { scope: 'webhooks:read', model: 'webhookAttempt', prisma: true },
  WebhookDelivery: { scope: 'webhooks:read', model: 'webhookDelivery', prisma: true },
  WebhookEndpoint: { scope: 'webhooks:read', model: 'webhookEndpoint', prisma: true },
});

export const NODE_TYPE_NAMES = Object.freeze(Object.keys(NODE_KINDS));

/** The global id of a record: `<Type>:<_id>` in base64url, opaque to clients. */
export function globalId(type: string, id: string): string {
  return Buffer.from(`${type}:${id}`).toString('base64url');
}

/** The type and record a global id names, or null for anything that is not one of ours. */
export function parseGlobalId(value: unknown): { type: string; id: string } | null {
  if (typeof value !== 'string' || !/^[A-Za-z0-9_-]{1,200}$/.test(value)) return null;
  const [type, id, ...rest] = Buffer.from(value, 'base64url').toString().split(':');
  if (rest.length || !type || !Object.hasOwn(NODE_KINDS, type) || !isId(id)) return null;
  return { type, id: id };
}

export const NodeInterface = builder.interfaceRef<{ id: string }>('Node').implement({
  description:
    'A record with a global id (Relay global object identification): refetch it with node(id:) or nodes(ids:)',
  resolveType: (row) => (row as Row)[NODE_TYPE] as string,
  fields: (t) => ({
    id: t.id({
      description: 'The global id, opaque (its type and record), for node(id:) and client caches; the REST id is _id',
      resolve: (row, _a, _ctx, info) => globalId(info.parentType.name, row.id),
    }),
  }),
});

function notFound(): AppError {
  return new AppError('NOT_FOUND', 'No such node (give a global id, Node.id, not an _id)');
}

/** The records of one type by id, in the credential's company, each tagged with its type. */
async function loadRows(ctx: Context, info: GraphQLResolveInfo, type: string, ids: string[]): Promise<Row[]> {
  const kind = NODE_KINDS[type]!;
  if (!ctx.credential!.scopes.has(kind.scope)) throw insufficientScope(kind.scope);
  kind.guard?.(ctx);
  const companyId = ctx.credential!.companyId;
  const where =
    type === 'Company' ? { id: { in: ids.filter((id) => id === companyId) } } : { id: { in: ids }, companyId };
  // The relations the document selects on this type, loaded with the rows, as a field of its own would.
  const query = kind.prisma ? queryFromInfo({ context: ctx, info, typeName: type }) : {};
  const model = (ctx.db as unknown as Record<string, { findMany(q: object): Promise<Row[]> }>)[kind.model]!;
  const rows = await model.findMany({ ...query, where });
  for (const row of rows) Object.defineProperty(row, NODE_TYPE, { value: type });
  return rows;
}

/** The records of global ids, in their order: each a row or the error its own field would give. */
async function loadNodes(ctx: Context, info: GraphQLResolveInfo, ids: readonly unknown[]): Promise<Array<Row | Error>> {
  const parsed = ids.map(parseGlobalId);
  const byType = new Map<string, string[]>();
  for (const p of parsed) if (p) byType.set(p.type, [...(byType.get(p.type) ?? []), p.id]);
  const loaded = new Map<string, Map<string, Row> | Error>();
  for (const [type, typeIds] of byType) {
    try {
      loaded.set(type, new Map((await loadRows(ctx, info, type, [...new Set(typeIds)])).map((r) => [r.id, r])));
    } catch (err) {
      loaded.set(type, err as Error);
    }
  }
  return parsed.map((p) => {
    const rows = p ? loaded.get(p.type) : undefined;
    if (rows instanceof Error) return rows;
    return (p && rows?.get(p.id)) || notFound();
  });
}

builder.queryFields((t) => ({
  node: t.field({
    type: NodeInterface,
    nullable: true,
    description:
      "A record by its global id (Node.id), read as its own field reads it: that field's scope, only in the " +
      "credential's company (NOT_FOUND otherwise)",
    authScopes: { authenticated: true },
    args: { id: t.arg.id({ required: true, description: 'A global id (Node.id)' }) },
    resolve: async (_r, args, ctx, info) => {
      const [row] = await loadNodes(ctx, info, [args.id]);
      if (row instanceof Error) throw row;
      return row!;
    },
  }),
  nodes: t.field({
    type: [NodeInterface],
    nullable: { list: false, items: true },
    description:
      'Records by their global ids, in the same order; each one that cannot be read is null with its error ' +
      '(NOT_FOUND, INSUFFICIENT_SCOPE) beside it. At most 100 ids',
    authScopes: { authenticated: true },
    args: { ids: t.arg.idList({ required: true, description: 'Global ids (Node.id), at most 100' }) },
    resolve: async (_r, args, ctx, info) => {
      if (args.ids.length > 100) throw AppError.validation([{ path: 'ids', message: 'must hold at most 100 ids' }]);
      // graphql-js answers an Error in a list as that item's error (null beside it), the rest resolved.
      return (await loadNodes(ctx, info, args.ids)) as Row[];
    },
  }),
}));
