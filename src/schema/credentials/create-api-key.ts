import { z } from 'zod';
import type { Db } from '../../db/databases.js';
import type { ApiKey } from '../../generated/prisma/client.js';
import { generateToken, hashToken, tokenPrefix } from '../../auth/tokens.js';
import { AppError } from '../../errors.js';
import { newId } from '../../ids.js';
import { parseInput, requiredText } from '../validation.js';

const input = z.object({ companyId: z.string().regex(/^[0-9a-f]{24}$/), name: requiredText(100) }).strict();

/**
 * Creates an API key for a company, of the company's mode. Returns the key itself, which is
 * never stored and cannot be shown again (docs/api.md).
 */
export async function createApiKey(
  db: Db,
  opts: { companyId: string; name: string },
): Promise<{ apiKey: ApiKey; key: string }> {
  const data = parseInput(input, opts);
  const company = await db.company.findUnique({ where: { id: data.companyId } });
  if (!company) throw AppError.notFound('company');
  const key = generateToken('sk', company.mode);
  const apiKey = await db.apiKey.create({
    data: {
      id: newId(),
      companyId: company.id,
      name: data.name,
      mode: company.mode,
      keyHash: hashToken(key),
      prefix: tokenPrefix('sk', company.mode),
      last4: key.slice(-4),
    },
  });
  return { apiKey, key };
}
