// Secret strings the platform hands out: API keys (svc_sk_), OAuth access and refresh tokens
// (svc_at_, svc_rt_). Each is a prefix naming its kind and mode, 32 random base62 characters
// and a 6-character base62 CRC32 checksum, so secret scanners can recognise a leaked key and
// a mistyped or truncated one is refused without touching the database (docs/api.md).
import { hash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import type { Mode } from '../generated/prisma/enums.js';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;

export type TokenKind = 'sk' | 'at' | 'rt';

export interface ParsedToken {
  kind: TokenKind;
  mode: Mode;
  prefix: string;
}

const TOKEN_RE = /^svc_(sk|at|rt)_(live|test)_([0-9A-Za-z]{38})$/;

function base62(bytes: Buffer, length: number): string {
  // Rejection sampling keeps every character uniformly likely.
  let out = '';
  let pool = bytes;
  let i = 0;
  while (out.length < length) {
    if (i >= pool.length) {
      pool = randomBytes(64);
      i = 0;
    }
    const b = pool[i++]!;
    if (b < 248) out += ALPHABET[b % 62];
  }
  return out;
}

function checksum(body: string): string {
  // zlib's CRC-32 (Node >= 20.15) is the same checksum as a bitwise loop over these ASCII
  // characters, at a third of the cost: it runs on every authenticated request.
  let n = crc32(body);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = ALPHABET[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

export function tokenPrefix(kind: TokenKind, mode: Mode): string {
  return `svc_${kind}_${mode}_`;
}

export function generateToken(kind: TokenKind, mode: Mode): string {
  const body = tokenPrefix(kind, mode) + base62(randomBytes(48), RANDOM_LENGTH);
  return body + checksum(body);
}

/** The kind and mode of a well-formed token whose checksum matches; null for anything else. */
export function parseToken(token: string): ParsedToken | null {
  const m = TOKEN_RE.exec(token);
  if (!m) return null;
  const body = token.slice(0, -CHECKSUM_LENGTH);
  if (checksum(body) !== token.slice(-CHECKSUM_LENGTH)) return null;
  return { kind: m[1] as TokenKind, mode: m[2] as Mode, prefix: `svc_${m[1]}_${m[2]}_` };
}

/** Only this hash is stored (docs/api.md); the token itself is shown once. */
export function hashToken(token: string): string {
  // One-shot hash (Node >= 20.12): no Hash object per request on the credential path.
  return hash('sha256', token, 'hex');
}
