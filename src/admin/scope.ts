// What a signed-in request may see: only its own account's companies, looked up in the
// database of the mode in the URL with the account id in the query itself. Another account's
// id, a malformed id or a company of the other mode are all the same 404 (docs/api.md: tenants and
// modes are isolated), so the admin area cannot be used to probe which ids exist.
import type { FastifyRequest } from 'fastify';
import type { ActiveSession } from '../auth/sessions.js';
import { fieldsOf, stringFieldsOf } from '../auth/pages/request-fields.js';
import type { Db } from '../db/databases.js';
import type { Company } from '../generated/prisma/client.js';
import type { Mode } from '../generated/prisma/enums.js';
import { findAccountCompany, listAccountCompanies } from '../schema/companies/index.js';
import type { Services } from '../services.js';
import { AdminNotFound } from './http.js';
import type { LayoutContext } from './layout.js';

declare module 'fastify' {
  interface FastifyRequest {
    adminSession: ActiveSession | null;
  }
}

export function activeSession(req: FastifyRequest): ActiveSession {
  // The guard in index.ts sets it on every route but the login page and the assets.
  if (!req.adminSession) throw new Error('admin route reached without a session');
  return req.adminSession;
}

export function parseMode(value: unknown): Mode {
  if (value === 'live' || value === 'test') return value;
  throw new AdminNotFound();
}

/**
 * The mode a request is in, for pages that are not tied to one (account pages, error pages):
 * the mode in the path (`/admin/test/…`), else `?mode=test` (see accountPath), else live.
 */
export function modeOfRequest(req: FastifyRequest): Mode {
  const url = new URL(req.url, 'http://admin.invalid');
  const inPath = /^\/admin\/(live|test)(\/|$)/.exec(url.pathname)?.[1];
  if (inPath === 'live' || inPath === 'test') return inPath;
  return url.searchParams.get('mode') === 'test' ? 'test' : 'live';
}

export async function companiesOf(services: Services, accountId: string, mode: Mode): Promise<Company[]> {
  return listAccountCompanies(services.dbs, { accountId, mode });
}

export async function layoutFor(
  services: Services,
  req: FastifyRequest,
  mode: Mode,
  section?: string,
  company?: Company | null,
): Promise<LayoutContext> {
  const { session, account } = activeSession(req);
  return {
    accountEmail: account.email,
    csrfToken: session.csrfToken,
    mode,
    companies: await companiesOf(services, account.id, mode),
    company,
    section,
  };
}

export interface CompanyScope {
  company: Company;
  db: Db;
  mode: Mode;
  accountId: string;
  ctx: LayoutContext;
}

/** The company of `/admin/:mode/companies/:companyId/…`, if it is the session's own. */
export async function companyScope(services: Services, req: FastifyRequest, section: string): Promise<CompanyScope> {
  const params = paramsOf(req);
  const mode = parseMode(params.mode);
  const { account } = activeSession(req);
  // NOT_FOUND (another account's, the other mode's, a malformed id) is the admin area's 404.
  const company = await findAccountCompany(services.dbs, { accountId: account.id, mode, id: params.companyId });
  return {
    company,
    db: services.dbs.forMode(mode),
    mode,
    accountId: account.id,
    ctx: await layoutFor(services, req, mode, section, company),
  };
}

/** A form's fields as strings (a repeated field's first value); anything else is absent. */
export function formOf(req: FastifyRequest): Record<string, string> {
  return stringFieldsOf(req.body, { firstOfRepeated: true });
}

/** A repeated form field (checkboxes) as a list of strings. */
export function formList(req: FastifyRequest, name: string): string[] {
  const v = fieldsOf(req.body)[name];
  const list: unknown[] = Array.isArray(v) ? v : v === undefined ? [] : [v];
  return list.filter((s): s is string => typeof s === 'string');
}

/** The query string's single-valued fields; a repeated one is absent (no page sends one). */
export function queryOf(req: FastifyRequest): Record<string, string> {
  return stringFieldsOf(req.query);
}

/** The route's path parameters (`:mode`, `:companyId`, …), each a string when present. */
export function paramsOf(req: FastifyRequest): Record<string, string> {
  return stringFieldsOf(req.params);
}
