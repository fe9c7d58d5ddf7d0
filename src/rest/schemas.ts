// Shared JSON Schemas (TypeBox) for request validation, fast response serialisation and the
// generated OpenAPI document.
import { Type, type TSchema } from '@sinclair/typebox';

export const Id = Type.String({ pattern: '^[0-9a-f]{24}$', description: '24 lowercase hex characters' });
export const Timestamp = Type.String({
  format: 'date-time',
  description:
    'RFC 3339 with Z or a numeric offset, years 1970–9999 (e.g. 2026-03-29T11:00:00+02:00); answered in UTC: 2026-03-29T09:00:00.000Z',
});

const Meta = Type.Object({
  timestamp: Type.Integer({ description: 'Milliseconds since the epoch' }),
  version: Type.Literal('v1'),
  requestId: Type.String(),
});

const PaginatedMeta = Type.Object({
  timestamp: Type.Integer(),
  version: Type.Literal('v1'),
  requestId: Type.String(),
  pagination: Type.Object({
    limit: Type.Integer(),
    hasMore: Type.Boolean(),
    nextCursor: Type.Union([Type.String(), Type.Null()]),
  }),
});

export const ErrorEnvelope = Type.Object(
  {
    status: Type.Literal(false),
    error: Type.Object({
      code: Type.String({
        description:
          'Machine-readable code from the error table (an open set: treat an unknown code by its HTTP status)',
      }),
      message: Type.String(),
      details: Type.Optional(Type.Unknown()),
    }),
    meta: Type.Object({ timestamp: Type.Integer(), requestId: Type.String() }),
  },
  { $id: 'ErrorEnvelope', title: 'Error envelope' },
);

export function Envelope<T extends TSchema>(data: T) {
  return Type.Object({ status: Type.Literal(true), data, meta: Meta });
}

export function ListEnvelope<T extends TSchema>(item: T) {
  return Type.Object({ status: Type.Literal(true), data: Type.Array(item), meta: PaginatedMeta });
}

const errorRef = Type.Ref('ErrorEnvelope');

/** The error envelope for each of these statuses (which codes each carries: error-codes.ts). */
export function errorResponses(statuses: number[]) {
  return Object.fromEntries(statuses.map((c) => [c, errorRef]));
}

/** `T | null` for optional fields that are present in every response. */
export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

/** ?limit= (1–100, default 20) and ?cursor= of every list (docs/api.md). */
export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Page size, 1–100' })),
  cursor: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'The nextCursor of the previous page' }),
  ),
};

/**
 * A path parameter id. Anything that is not an id, whatever its length or bytes, fails this
 * schema and is answered 404 NOT_FOUND like an id of no record (error-handler.ts).
 */
export const PathId = Id;

/** The body of a POST action that takes no fields: absent, or `{}`; any field is a 400. */
export const NoBody = Type.Object({}, { additionalProperties: false, title: 'No fields' });

const METADATA_RULE =
  'at most 50 keys of 1–40 characters, each value a string of at most 500 characters (docs/api.md, Metadata)';

/** Metadata as answered and as given on create (the use cases' metadata rule judges it). */
export const Metadata = Type.Record(Type.String(), Type.String(), {
  title: 'Metadata',
  description: `Your own key/value pairs: ${METADATA_RULE}`,
});

/** Metadata in a PATCH: merged into the stored keys; a key set to null is removed. */
export const MetadataPatch = Type.Record(Type.String(), Nullable(Type.String()), {
  title: 'Metadata patch',
  description: `Keys to set, merged into the stored ones; a key set to null is removed. The result: ${METADATA_RULE}`,
});

/** POST …/calendar-feed/rotate (docs/calendars.md). */
export const RotateCalendarFeed = Type.Object(
  {
    includeNotes: Type.Optional(
      Type.Boolean({ description: "Show bookings' notes in the feed (default false: notes stay out)" }),
    ),
  },
  { additionalProperties: false, title: 'Calendar feed options' },
);

export const CalendarFeedUrl = Type.Object(
  {
    url: Type.String({
      description: 'BASE_URL/calendar/<token>.ics: the feed to subscribe to; the old URL stopped working',
    }),
    includeNotes: Type.Boolean({ description: "Whether the feed shows bookings' notes" }),
  },
  { title: 'Calendar feed' },
);
