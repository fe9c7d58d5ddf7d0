// Record ids: 24 lowercase hex characters in MongoDB ObjectId layout (docs/api.md): 4 bytes of
// seconds, 5 random bytes chosen once per process, a 3-byte counter. Ids made by one process
// sort by creation, which keeps cursor pagination on `id` stable under inserts.
import { randomBytes, randomInt } from 'node:crypto';

const processRandom = randomBytes(5);
let counter = randomInt(0, 0xffffff);

export function newId(now: number = Date.now()): string {
  const buf = Buffer.allocUnsafe(12);
  buf.writeUInt32BE(Math.floor(now / 1000) >>> 0, 0);
  processRandom.copy(buf, 4);
  counter = (counter + 1) % 0x1000000;
  buf.writeUIntBE(counter, 9, 3);
  return buf.toString('hex');
}

export const ID_PATTERN = /^[0-9a-f]{24}$/;

export function isId(value: unknown): value is string {
  return typeof value === 'string' && ID_PATTERN.test(value);
}
