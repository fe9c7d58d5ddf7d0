// The audit log (docs/admin.md, Audit log): who did what in the admin area, when, and to which
// record, with the record before and after where the page supplied them. Rows live in the live
// database for both modes. Nothing secret is kept: values under secret-sounding keys and strings
// shaped like our keys, tokens and secrets are replaced before the row is written.
import type { Databases } from '../../db/databases.js';
import type { AuditEntry, Prisma } from '../../generated/prisma/client.js';
import type { Mode } from '../../generated/prisma/enums.js';
import { isId, newId } from '../../ids.js';

export const REDACTED = '[redacted]';

const SECRET_KEY = /secret|token|password|hash|^key$|^apiKey$|^clientSecret$/i;
// API keys and OAuth tokens (svc_sk_…, svc_at_…, svc_rt_…, svc_cs_…) and webhook secrets.
const SECRET_VALUE = /\b(svc_[a-z]{2}_[A-Za-z0-9_-]{6,}|whsec_[A-Za-z0-9+/=_-]{6,})/g;

/** A JSON copy of `value` with secrets replaced (see above); dates become ISO strings. */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 8) return REDACTED;
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'string') return value.replace(SECRET_VALUE, REDACTED);
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>))
      out[k] = SECRET_KEY.test(k) && v !== null && v !== undefined ? REDACTED : redact(v, depth + 1);
    return out;
  }
  return value;
}

export interface AuditInput {
  teamAccountId: string;
  actorAccountId: string;
  actorEmail: string;
  mode: Mode | null;
  companyId: string | null;
  action: string;
  method: string;
  path: string;
  targetType?: string | null;
  targetId?: string | null;
  before?: unknown;
  after?: unknown;
  at: Date;
}

const json = (v: unknown) => (v === undefined ? undefined : (redact(v) as Prisma.InputJsonValue));

export async function recordAudit(dbs: Databases, input: AuditInput): Promise<AuditEntry> {
  return dbs.live.prisma.auditEntry.create({
    data: {
      id: newId(input.at.getTime()),
      teamAccountId: input.teamAccountId,
      actorAccountId: input.actorAccountId,
      actorEmail: input.actorEmail,
      mode: input.mode,
      companyId: input.companyId,
      action: input.action,
      method: input.method,
      // The path only: a query string could carry anything.
      path: input.path.split('?')[0]!.slice(0, 500),
      targetType: input.targetType ?? null,
      targetId: input.targetId ?? null,
      before: json(input.before),
      after: json(input.after),
      at: input.at,
    },
  });
}

export interface AuditFilter {
  teamAccountId: string;
  actorAccountId?: string;
  action?: string;
  /** Entries at or after `from` and before `to`. */
  from?: Date;
  to?: Date;
  /** Keyset: entries older than this id (the previous page's last). */
  before?: string;
  limit?: number;
}

/** One page of the team's log, newest first, and the id to continue from (null at the end). */
export async function listAudit(
  dbs: Databases,
  f: AuditFilter,
): Promise<{ entries: AuditEntry[]; next: string | null }> {
  const limit = Math.min(Math.max(f.limit ?? 50, 1), 200);
  const rows = await dbs.live.prisma.auditEntry.findMany({
    where: {
      teamAccountId: f.teamAccountId,
      ...(f.actorAccountId ? { actorAccountId: f.actorAccountId } : {}),
      ...(f.action ? { action: f.action } : {}),
      ...(f.from || f.to ? { at: { ...(f.from ? { gte: f.from } : {}), ...(f.to ? { lt: f.to } : {}) } } : {}),
      ...(f.before && isId(f.before) ? { id: { lt: f.before } } : {}),
    },
    orderBy: { id: 'desc' },
    take: limit + 1,
  });
  const entries = rows.slice(0, limit);
  return { entries, next: rows.length > limit ? entries.at(-1)!.id : null };
}

/** The actions and actors that occur in the team's log, for the page's filters. */
export async function auditFacets(
  dbs: Databases,
  teamAccountId: string,
): Promise<{ actions: string[]; actors: Array<{ id: string; email: string }> }> {
  const [actions, actors] = await Promise.all([
    dbs.live.prisma.auditEntry.findMany({
      where: { teamAccountId },
      distinct: ['action'],
      select: { action: true },
      orderBy: { action: 'asc' },
    }),
    dbs.live.prisma.auditEntry.findMany({
      where: { teamAccountId },
      distinct: ['actorAccountId'],
      select: { actorAccountId: true, actorEmail: true },
      orderBy: { actorAccountId: 'asc' },
    }),
  ]);
  return {
    actions: actions.map((a) => a.action),
    actors: actors.map((a) => ({ id: a.actorAccountId, email: a.actorEmail })),
  };
}
