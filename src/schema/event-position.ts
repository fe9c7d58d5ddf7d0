// What a client may give where an event position is expected (docs/api.md, Events): a position,
// or, for a client that kept event ids, an event's `_id`, standing for that event's position.
import { AppError } from '../errors.js';
import { isId } from '../ids.js';

export type EventPositionInput = { position: bigint } | { eventId: string };

/** Positions are below 2^53, so they stay exact as JSON numbers. */
const MAX_DIGITS = 15;

/** Parses a position (an integer, or its decimal digits) or an event id; `path` names the field. */
export function parseEventPosition(value: unknown, path: string): EventPositionInput {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return { position: BigInt(value) };
  if (typeof value === 'string') {
    if (new RegExp(`^\\d{1,${MAX_DIGITS}}$`).test(value)) return { position: BigInt(value) };
    if (isId(value)) return { eventId: value };
  }
  throw AppError.validation([{ path, message: "must be an event's position (an integer from 0) or an event _id" }]);
}
