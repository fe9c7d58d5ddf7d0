// Customer manage links (docs/api.md, Manage links):
// `svc_ml_` and the base64url of [mode][booking id][link version][MAC], where the MAC is
// HMAC-SHA256 over the rest, cut to 24 bytes (192 bits; at least 128 are required). Nothing is
// stored: the booking's id, its mode (live or sandbox) and the booking's link version are bound
// by the MAC, so a token of a sandbox booking cannot name a live one, and rotating the booking's
// version revokes every link issued before.
//
// The keys: MANAGE_LINK_SECRETS, a comma list whose first entry signs and every entry verifies
// (rotation: put the new secret first and keep the old one until its links may go). Unset, one
// key derived from SECRET_KEY (HKDF), which production requires and development keeps under
// DATA_DIR; the entry `SECRET_KEY` in the list names that derived key, so a deployment can
// move from the default to its own secrets without breaking the links already sent.
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { Config } from '../config.js';
import type { Mode } from '../generated/prisma/enums.js';
import { secretKeyBytes } from './secret-box.js';

export const MANAGE_TOKEN_PREFIX = 'svc_ml_';
const MAC_BYTES = 24;
const ID_BYTES = 12;
const PAYLOAD_BYTES = 1 + ID_BYTES + 4;
const TOKEN_RE = new RegExp(
  `^${MANAGE_TOKEN_PREFIX}([A-Za-z0-9_-]{${Math.ceil(((PAYLOAD_BYTES + MAC_BYTES) * 4) / 3)}})$`,
);
const MODES: Mode[] = ['live', 'test'];

export interface ManageTokenClaims {
  mode: Mode;
  bookingId: string;
  /** The booking's manage-link version when the token was issued. */
  version: number;
}

/** The entry of MANAGE_LINK_SECRETS that names the key derived from SECRET_KEY. */
export const DERIVED_KEY_ENTRY = 'SECRET_KEY';

function derivedKey(config: Config): Buffer {
  return Buffer.from(hkdfSync('sha256', secretKeyBytes(config), Buffer.alloc(0), 'svc manage links v1', 32));
}

// eslint-disable-next-line no-restricted-syntax -- process state: per-configuration clients
const keyCache = new WeakMap<Config, Buffer[]>();

/** The signing key first, then every other key that still verifies. */
export function manageLinkKeys(config: Config): Buffer[] {
  let keys = keyCache.get(config);
  if (!keys) {
    const entries = config.MANAGE_LINK_SECRETS ?? [DERIVED_KEY_ENTRY];
    keys = entries.map((e) => (e === DERIVED_KEY_ENTRY ? derivedKey(config) : Buffer.from(e, 'utf8')));
    keyCache.set(config, keys);
  }
  return keys;
}

function mac(key: Buffer, payload: Buffer): Buffer {
  return createHmac('sha256', key).update('svc_ml\u0001').update(payload).digest().subarray(0, MAC_BYTES);
}

export function signManageToken(keys: Buffer[], claims: ManageTokenClaims): string {
  const payload = Buffer.alloc(PAYLOAD_BYTES);
  payload.writeUInt8(MODES.indexOf(claims.mode), 0);
  Buffer.from(claims.bookingId, 'hex').copy(payload, 1);
  payload.writeUInt32BE(claims.version >>> 0, 1 + ID_BYTES);
  return MANAGE_TOKEN_PREFIX + Buffer.concat([payload, mac(keys[0]!, payload)]).toString('base64url');
}

/** The claims of a token whose MAC one of the keys made; null for anything else. */
export function verifyManageToken(keys: Buffer[], token: string): ManageTokenClaims | null {
  const m = TOKEN_RE.exec(token);
  if (!m) return null;
  const raw = Buffer.from(m[1]!, 'base64url');
  // base64url decoding ignores stray bits: the canonical form must be the one given.
  if (raw.length !== PAYLOAD_BYTES + MAC_BYTES || raw.toString('base64url') !== m[1]) return null;
  const payload = raw.subarray(0, PAYLOAD_BYTES);
  const given = raw.subarray(PAYLOAD_BYTES);
  // Every key is tried, so the time taken does not tell which one matched.
  let valid = false;
  for (const key of keys) valid = timingSafeEqual(mac(key, payload), given) || valid;
  const mode = MODES[payload.readUInt8(0)];
  if (!valid || !mode) return null;
  return {
    mode,
    bookingId: payload.subarray(1, 1 + ID_BYTES).toString('hex'),
    version: payload.readUInt32BE(1 + ID_BYTES),
  };
}
