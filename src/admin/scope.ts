// What a signed-in request may see: the companies of its own account and of the teams it belongs
// to (docs/admin.md, Team and roles), looked up in the database of the mode in the URL, each with
// the person's role there. Another team's id, a malformed id or a company of the other mode are
// all the same 404 (docs/api.md: tenants and modes are isolated), so the admin area cannot be
// used to probe which ids exist.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ActiveSession } from '../auth/sessions.js';
import { fieldsOf, stringFieldsOf } from '../auth/pages/request-fields.js';
import type { Db } from '../db/databases.js';
import type { Company } from '../generated/prisma/client.js';
import type { Mode } from '../generated/prisma/enums.js';
import { findCompanyAccess, listAccessibleCompanies, type CompanyAccess, type Role } from '../schema/team/index.js';
import type { Services } from '../services.js';
import { AppError } from '../errors.js';
import { AdminNotFound } from './http.js';
import type { LayoutContext } from './layout.js';

declare module 'fastify' {
  interface FastifyRequest {
    adminSession: ActiveSession | null;
    /** The company of a company page with the person's role there, resolved once by the guard. */
    adminAccess: CompanyAccess | null;
    /** The companies the person sees in one mode, when the guard already read them (a page's picker). */
    adminCompanies: { mode: Mode; list: CompanyAccess[] } | null;
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

/** The companies of one mode the person sees: their own and their teams' (staff: their employee's). */
export async function companiesOf(services: Services, accountId: string, mode: Mode): Promise<Company[]> {
  return (await listAccessibleCompanies(services.dbs, { accountId, mode })).map((a) => a.company);
}

export async function layoutFor(
  services: Services,
  req: FastifyRequest,
  mode: Mode,
  section?: string,
  company?: Company | null,
  access?: { role: Role; staffEmployeeId: string | null },
): Promise<LayoutContext> {
  const { session, account } = activeSession(req);
  const known = req.adminCompanies?.mode === mode ? req.adminCompanies.list.map((a) => a.company) : null;
  return {
    accountEmail: account.email,
    csrfToken: session.csrfToken,
    mode,
    companies: known ?? (await companiesOf(services, account.id, mode)),
    company,
    section,
    role: access?.role,
    staffEmployeeId: access?.staffEmployeeId ?? null,
  };
}

export interface CompanyScope {
  company: Company;
  db: Db;
  mode: Mode;
  /** The signed-in person's account (not necessarily the company's owner). */
  accountId: string;
  /** The person's role in the company's team (docs/admin.md, Team and roles). */
  role: Role;
  /**
   * For staff, the one employee whose bookings, calendar and customers they see; pages filter to
   * it and answer 404 for other employees' records. Null for every other role.
   */
  staffEmployeeId: string | null;
  ctx: LayoutContext;
}

/** The company of `/admin/:mode/companies/:companyId/…` with the person's role, if they see it. */
export async function companyScope(services: Services, req: FastifyRequest, section: string): Promise<CompanyScope> {
  const params = paramsOf(req);
  const mode = parseMode(params.mode);
  const { account } = activeSession(req);
  // NOT_FOUND (another team's, the other mode's, a malformed id) is the admin area's 404.
  const access =
    req.adminAccess && req.adminAccess.company.id === params.companyId && req.adminAccess.company.mode === mode
      ? req.adminAccess
      : await findCompanyAccess(services.dbs, { accountId: account.id, mode, id: params.companyId });
  const { company, role, staffEmployeeId } = access;
  return {
    company,
    db: services.dbs.forMode(mode),
    mode,
    accountId: account.id,
    role,
    staffEmployeeId,
    ctx: await layoutFor(services, req, mode, section, company, access),
  };
}

/** A company page's handler: it gets the company of its URL, the mode and the person's role first. */
export type CompanyHandler = (s: CompanyScope, req: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/**
 * The routes of one group of company pages (`/:mode/companies/:companyId/…`), hidden from the
 * OpenAPI document: each handler is called with the request's companyScope for `section` (the
 * nav entry it lights and the role it needs), so no handler loads the company its own way.
 */
export function companyRoutes(app: FastifyInstance, services: Services, section: string) {
  const add =
    (method: 'GET' | 'POST') =>
    (url: string, handler: CompanyHandler, o: { section?: string } = {}) =>
      app.route({
        method,
        url,
        schema: { hide: true },
        handler: async (req, reply) => handler(await companyScope(services, req, o.section ?? section), req, reply),
      });
  return { get: add('GET'), post: add('POST') };
}

/**
 * The role of the company page a request is for (`/admin/:mode/companies/:companyId/…`), resolved
 * once by the guard and kept on the request; null for pages of no one company.
 */
export async function resolveCompanyAccess(services: Services, req: FastifyRequest): Promise<CompanyAccess | null> {
  const m = COMPANY_PAGE.exec(new URL(req.url, 'http://admin.invalid').pathname);
  if (!m) return null;
  const mode = parseMode(m[1]);
  const accountId = activeSession(req).account.id;
  const id = safeDecode(m[2]!);
  if (req.method === 'GET') {
    // A page shows the person's companies in its picker: read them once, and find this one
    // among them (the same rule as findCompanyAccess, which a form post uses alone).
    const list = await listAccessibleCompanies(services.dbs, { accountId, mode });
    req.adminCompanies = { mode, list };
    const access = list.find((a) => a.company.id === id);
    if (!access) throw AppError.notFound('company');
    req.adminAccess = access;
  } else {
    req.adminAccess = await findCompanyAccess(services.dbs, { accountId, mode, id });
  }
  return req.adminAccess;
}

/** The path after a company page's prefix, in segments ([] for the company's own page). */
export function companyPageRest(req: FastifyRequest): string[] {
  const m = COMPANY_PAGE.exec(new URL(req.url, 'http://admin.invalid').pathname);
  return (m?.[3] ?? '').split('/').filter(Boolean).map(safeDecode);
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

const COMPANY_PAGE = /^\/admin\/([^/]+)\/companies\/([^/]+)(?:\/(.*))?$/;

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
