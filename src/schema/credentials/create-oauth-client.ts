import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { SCOPES, isScope } from '../../auth/scopes.js';
import { redirectUriProblem } from '../../auth/oauth/redirect-uri.js';
import { hashToken } from '../../auth/tokens.js';
import type { Databases } from '../../db/databases.js';
import type { OAuthClient } from '../../generated/prisma/client.js';
import { AppError } from '../../errors.js';
import { newId } from '../../ids.js';
import { parseInput, requiredText } from '../validation.js';

const input = z
  .object({
    accountId: z.string().regex(/^[0-9a-f]{24}$/),
    name: requiredText(100),
    redirectUris: z
      .array(
        z.string().superRefine((u, ctx) => {
          const problem = redirectUriProblem(u);
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        }),
      )
      .min(1, 'at least one redirect URI is required')
      .max(20, 'at most 20 redirect URIs'),
    scopes: z
      .array(z.string().refine(isScope, `must be one of: ${SCOPES.join(' ')}`))
      .min(1, 'at least one scope is required')
      .optional(),
    type: z.enum(['confidential', 'public']),
  })
  .strict();

/** A client secret: high-entropy and random, so a SHA-256 of it is a safe thing to store. */
export const CLIENT_SECRET_PREFIX = 'svc_cs_';

/**
 * Registers an OAuth client (docs/oauth.md): exact redirect URIs, the scopes it may ask for (all by
 * default), confidential with a secret shown only in this result, or public (PKCE, no secret).
 */
export async function createOAuthClient(
  dbs: Databases,
  opts: { accountId: string; name: string; redirectUris: string[]; scopes?: string[]; type: 'confidential' | 'public' },
): Promise<{ client: OAuthClient; clientSecret: string | null }> {
  const data = parseInput(input, opts);
  const account = await dbs.live.prisma.account.findUnique({ where: { id: data.accountId } });
  if (!account) throw AppError.notFound('account');
  const clientSecret =
    data.type === 'confidential' ? CLIENT_SECRET_PREFIX + randomBytes(32).toString('base64url') : null;
  const client = await dbs.live.prisma.oAuthClient.create({
    data: {
      id: newId(),
      accountId: account.id,
      clientId: `client_${randomBytes(12).toString('hex')}`,
      name: data.name.trim(),
      type: data.type,
      secretHash: clientSecret ? hashToken(clientSecret) : null,
      redirectUris: [...new Set(data.redirectUris)],
      scopes: data.scopes ? [...new Set(data.scopes)] : [...SCOPES],
    },
  });
  return { client, clientSecret };
}
