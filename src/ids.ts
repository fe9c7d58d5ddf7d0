// Record ids: 24 lowercase hex characters in MongoDB ObjectId layout (docs/api.md): 4 bytes of
// seconds, 5 random bytes chosen once per process, a 3-byte counter. Ids made by one process
// sort by creation, which keeps cursor pagination on `id` stable under inserts.
import { randomBytes, randomInt } from 'node:crypto';

const processRandom = randomBytes(5).toString('hex');
// eslint-disable-next-line no-restricted-syntax -- process state: ids
let counter = randomInt(0, 0xffffff);
/** The first 18 characters (seconds and the process's random part) of the last second asked. */
// eslint-disable-next-line no-restricted-syntax -- process state: ids
let second = -1;
// eslint-disable-next-line no-restricted-syntax -- process state: ids
let head = '';

// Written with strings rather than a Buffer and its hex: every request log's row takes an id,
// and the Buffer's allocation and conversion were a tenth of the log's cost a request
// (bench/request-logs-micro.ts).
export function newId(now: number = Date.now()): string {
  const s = Math.floor(now / 1000) >>> 0;
  if (s !== second) {
    second = s;
    head = s.toString(16).padStart(8, '0') + processRandom;
  }
  counter = (counter + 1) % 0x1000000;
  return head + counter.toString(16).padStart(6, '0');
}

export const ID_PATTERN = /^[0-9a-f]{24}$/;

export function isId(value: unknown): value is string {
  return typeof value === 'string' && ID_PATTERN.test(value);
}
