// Every successful admin form post goes into the audit log (docs/admin.md, Audit log), recorded
// here once for all routes: who (the session's account), what (the route and method as a
// readable action name), which record (the route's last id parameter, or what the route says),
// when, and — where the route supplies them with req.audit({ before, after }) — the record
// before and after. A post that was refused or failed (status 400 and up) changed nothing and
// is not recorded; one whose recording fails is logged, not undone.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { recordAudit } from '../schema/team/index.js';
import type { Services } from '../services.js';
import { modeOfRequest, paramsOf } from './scope.js';
import { deepFreeze } from '../frozen.js';

export interface AuditDetail {
  before?: unknown;
  after?: unknown;
  targetType?: string;
  targetId?: string;
  /** A name of the action when the route's own would not say it (e.g. a form with several buttons). */
  action?: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    auditDetail: AuditDetail | null;
    /** Adds to what the audit log records of this request (merged over earlier calls). */
    audit(detail: AuditDetail): void;
  }
}

// Names that the rule in actionName would not give well.
const NAMED: Record<string, string> = {
  'POST /admin/:mode/companies': 'company.create',
  'POST /admin/:mode/companies/:companyId/edit': 'company.update',
};

// Path parameters that say where, not what.
const SCOPE_PARAMS = deepFreeze(new Set(['mode', 'companyId']));

/**
 * A readable name for a route: its literal segments after the company prefix, the first as the
 * subject and the last as the verb (`api-keys/:keyId/revoke` → `api-keys.revoke`); a post to a
 * record is `update`, one to a collection `create`.
 */
export function actionName(method: string, routeUrl: string): string {
  const named = NAMED[`${method} ${routeUrl}`];
  if (named) return named;
  const parts = routeUrl
    .replace(/^\/admin/, '')
    .replace(/^\/:mode\/companies\/:companyId/, '')
    .replace(/^\/test\//, '/')
    .split('/')
    .filter(Boolean);
  const literal = parts.filter((p) => !p.startsWith(':'));
  const subject = literal[0] ?? 'company';
  const last = parts.at(-1) ?? '';
  const verb = literal.length > 1 ? literal.at(-1)! : last.startsWith(':') ? 'update' : 'create';
  return `${subject}.${verb}`;
}

export function registerAuditHook(app: FastifyInstance, services: Services): void {
  app.decorateRequest('auditDetail', null);
  app.decorateRequest('audit', function (this: FastifyRequest, detail: AuditDetail) {
    this.auditDetail = { ...this.auditDetail, ...detail };
  });

  app.addHook('onSend', async (req, reply, payload) => {
    const active = req.adminSession;
    if (req.method !== 'POST' || !active || reply.statusCode >= 400) return payload;
    const routeUrl = req.routeOptions.url ?? '';
    if (!routeUrl || routeUrl === '/admin/logout') return payload;
    const params = paramsOf(req);
    const ids = Object.entries(params).filter(([k]) => !SCOPE_PARAMS.has(k));
    const lastId = ids.at(-1);
    const access = req.adminAccess;
    const detail = req.auditDetail ?? {};
    try {
      await recordAudit(services.dbs, {
        // Company pages: the company's team; account pages (OAuth apps, sandbox): the person's own.
        teamAccountId: access?.company.accountId ?? active.account.id,
        actorAccountId: active.account.id,
        actorEmail: active.account.email,
        mode: access?.company.mode ?? modeOfRequest(req),
        companyId: access?.company.id ?? null,
        action: detail.action ?? actionName(req.method, routeUrl),
        method: req.method,
        path: req.url,
        targetType: detail.targetType ?? (lastId ? lastId[0].replace(/Id$/, '') : access ? 'company' : null),
        targetId: detail.targetId ?? (lastId ? lastId[1] : (access?.company.id ?? null)),
        before: detail.before,
        after: detail.after,
        at: new Date(services.now ? services.now() : Date.now()),
      });
    } catch (err) {
      req.log.error({ err, url: req.url }, 'admin action done but not written to the audit log');
    }
    return payload;
  });
}
