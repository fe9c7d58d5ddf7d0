import { z } from 'zod';
import type { Config } from '../../config.js';
import { secretBox } from '../../crypto/secret-box.js';
import type { Db } from '../../db/databases.js';
import { AppError } from '../../errors.js';
import type { WebhookEndpoint } from '../../generated/prisma/client.js';
import type { Mode } from '../../generated/prisma/enums.js';
import { newId } from '../../ids.js';
import { generateVerificationToken, generateWebhookSecret } from '../../webhooks/signature.js';
import { checkUrl, policyFor, UrlRefused } from '../../webhooks/ssrf-guard.js';
import { EVENT_TYPES } from '../events/index.js';
import { parseInput, text } from '../validation.js';

const MAX_ENDPOINTS = 16;
const SUBSCRIBABLE = EVENT_TYPES.filter((t) => t !== 'ping');

export const endpointEvents = z
  .array(z.string().max(64))
  .min(1, 'must name at least one event, or "*"')
  .max(SUBSCRIBABLE.length + 1)
  .superRefine((list, ctx) => {
    list.forEach((e, i) => {
      if (e !== '*' && !(SUBSCRIBABLE as readonly string[]).includes(e)) {
        ctx.addIssue({ code: 'custom', path: [i], message: `must be "*" or one of ${SUBSCRIBABLE.join(', ')}` });
      }
    });
  })
  .transform((list) => (list.includes('*') ? ['*'] : [...new Set(list)]));

export const endpointUrl = z.string().min(1, 'is required').max(2048, 'must be at most 2048 characters');

/** URL rules of docs/webhooks.md for the company's mode, as a field error. */
export function assertEndpointUrl(url: string, mode: Mode, config: Config): string {
  try {
    return checkUrl(url, policyFor(mode, config)).toString();
  } catch (err) {
    if (err instanceof UrlRefused) throw AppError.validation([{ path: 'url', message: err.message }]);
    throw err;
  }
}

const input = z
  .object({
    url: endpointUrl,
    events: endpointEvents,
    description: text(500).nullable().optional(),
    enabled: z.boolean().optional(),
  })
  .strict();

export interface EndpointWithSecrets {
  endpoint: WebhookEndpoint;
  secret: string;
  token: string;
}

/** Creates an endpoint; the signing secret and verification token are returned this once. */
export async function createWebhookEndpoint(
  db: Db,
  opts: { companyId: string; mode: Mode; config: Config; input: unknown },
): Promise<EndpointWithSecrets> {
  const data = parseInput(input, opts.input);
  const url = assertEndpointUrl(data.url, opts.mode, opts.config);
  const count = await db.webhookEndpoint.count({ where: { companyId: opts.companyId } });
  if (count >= MAX_ENDPOINTS) {
    throw AppError.validation([
      { path: 'url', message: `a company can have at most ${MAX_ENDPOINTS} webhook endpoints` },
    ]);
  }
  const secret = generateWebhookSecret();
  const token = generateVerificationToken();
  const box = secretBox(opts.config);
  const endpoint = await db.webhookEndpoint.create({
    data: {
      id: newId(),
      companyId: opts.companyId,
      url,
      events: data.events,
      description: data.description ?? null,
      enabled: data.enabled ?? true,
      secretEnc: box.seal(secret),
      tokenEnc: box.seal(token),
    },
  });
  return { endpoint, secret, token };
}
