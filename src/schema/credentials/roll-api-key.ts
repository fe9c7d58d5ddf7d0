import type { CredentialResolver } from '../../auth/credentials.js';
import { generateToken, hashToken, tokenPrefix } from '../../auth/tokens.js';
import type { Db } from '../../db/databases.js';
import type { ApiKey } from '../../generated/prisma/client.js';
import { AppError } from '../../errors.js';
import { isId, newId } from '../../ids.js';

/** The longest an old key may keep working after a roll (issue 6: "up to 7 days"). */
export const MAX_ROLL_GRACE_SECONDS = 7 * 24 * 60 * 60;

/**
 * Rolls a key (docs/admin.md: keys should be rotated regularly and old ones deleted): a new key of the
 * same name and mode is created and shown once, and the old one keeps working for
 * `graceSeconds` (0–7 days), then stops: its expiresAt, which the credential resolver honours,
 * is set. Only an active key without an end date can be rolled: a key in its grace period has
 * a successor already (CONFLICT), so a roll never makes a third key. Both rows change in one
 * transaction; the old key's cached resolution is dropped on every instance so the new expiry
 * applies at once.
 */
export async function rollApiKey(
  db: Db,
  credentials: Pick<CredentialResolver, 'invalidateToken'>,
  opts: { companyId: string; keyId: string; graceSeconds: number; now?: Date },
): Promise<{ apiKey: ApiKey; key: string; previous: ApiKey }> {
  if (!Number.isInteger(opts.graceSeconds) || opts.graceSeconds < 0 || opts.graceSeconds > MAX_ROLL_GRACE_SECONDS) {
    throw AppError.validation([
      { path: 'graceSeconds', message: `must be a whole number of seconds from 0 to ${MAX_ROLL_GRACE_SECONDS}` },
    ]);
  }
  if (!isId(opts.keyId)) throw AppError.notFound('API key');
  const now = opts.now ?? new Date();
  const result = await db.$transaction(async (tx) => {
    const old = await tx.apiKey.findFirst({ where: { id: opts.keyId, companyId: opts.companyId } });
    if (!old) throw AppError.notFound('API key');
    if (old.revokedAt || (old.expiresAt && old.expiresAt <= now))
      throw new AppError('CONFLICT', 'This key is revoked or expired; create a new key instead');
    if (old.expiresAt)
      throw new AppError(
        'CONFLICT',
        'This key has been rolled already and is in its grace period; roll its successor, or revoke it to stop it now',
      );
    // The condition makes the roll a compare-and-set: of two rolls of one key at once, one
    // sets the end date and the other finds it set, so exactly one successor is created.
    const { count } = await tx.apiKey.updateMany({
      where: { id: old.id, revokedAt: null, expiresAt: null },
      data: { expiresAt: new Date(now.getTime() + opts.graceSeconds * 1000) },
    });
    if (count !== 1)
      throw new AppError('CONFLICT', 'This key was rolled or revoked at the same moment; reload the list');
    const previous = await tx.apiKey.findUniqueOrThrow({ where: { id: old.id } });
    const key = generateToken('sk', old.mode);
    const apiKey = await tx.apiKey.create({
      data: {
        id: newId(),
        companyId: old.companyId,
        name: old.name,
        mode: old.mode,
        keyHash: hashToken(key),
        prefix: tokenPrefix('sk', old.mode),
        last4: key.slice(-4),
      },
    });
    return { apiKey, key, previous };
  });
  await credentials.invalidateToken(result.previous.keyHash);
  return result;
}
