// The complete scope list (docs/oauth.md). API keys carry all of them; OAuth tokens the granted ones.
import { deepFreeze } from '../frozen.js';

export const SCOPES = deepFreeze([
  'company:read',
  'company:write',
  'bookings:read',
  'bookings:write',
  'customers:read',
  'customers:write',
  'employees:read',
  'employees:write',
  'services:read',
  'services:write',
  'availability:read',
  'payments:read',
  'payments:write',
  'webhooks:read',
  'webhooks:write',
  'events:read',
  'emails:read',
  'logs:read',
] as const);

export type Scope = (typeof SCOPES)[number];

const known = deepFreeze(new Set<string>(SCOPES));

export function isScope(s: string): s is Scope {
  return known.has(s);
}

/**
 * Scopes a person must tick on the consent page to grant: never preselected (docs/oauth.md).
 * The request logs hold what the company's integrations sent and got back.
 */
export const OPT_IN_SCOPES: ReadonlySet<Scope> = deepFreeze(new Set<Scope>(['logs:read']));

/** Every API key's scopes: one set shared by every key's resolution, so frozen. */
export const ALL_SCOPES: ReadonlySet<Scope> = deepFreeze(new Set(SCOPES));

/** Parses a space-separated scope string; unknown names are returned separately. */
export function parseScopes(value: string): { scopes: Scope[]; unknown: string[] } {
  const scopes: Scope[] = [];
  const unknown: string[] = [];
  for (const s of value.split(' ').filter(Boolean)) {
    if (isScope(s)) {
      if (!scopes.includes(s)) scopes.push(s);
    } else unknown.push(s);
  }
  return { scopes, unknown };
}
