// Calendar feed tokens (docs/calendars.md): `svc_cf_<mode>_` and 32 random bytes in base64url
// (256 bits; at least 128 are required). Random, not signed: the feed row holds the token's
// SHA-256 for the lookup and the token sealed with the secret box so the admin area can show
// the URL again. The mode in the token picks the database looked in, and the hash is of the
// whole token, so a sandbox token with its mode changed names nothing in live.
import { createHash, randomBytes } from 'node:crypto';
import type { Mode } from '../generated/prisma/enums.js';

export const FEED_TOKEN_PREFIX = 'svc_cf_';
const TOKEN_RE = /^svc_cf_(live|test)_([A-Za-z0-9_-]{43})$/;

export function newFeedToken(mode: Mode): string {
  return `${FEED_TOKEN_PREFIX}${mode}_${randomBytes(32).toString('base64url')}`;
}

export function feedTokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** The mode a well-formed token names; null for anything else (the caller answers 404). */
export function feedTokenMode(token: string): Mode | null {
  const m = TOKEN_RE.exec(token);
  return m ? (m[1] as Mode) : null;
}
