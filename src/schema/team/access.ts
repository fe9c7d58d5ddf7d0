// Who may see which company, and with which role (docs/admin.md, Team and roles). A company's
// team is its owning account: that account is the owner; a membership of the team gives another
// person's account the role admin, staff or viewer. A staff membership sees only the company of
// its employee in that mode (live_employee_id / test_employee_id); without one, nothing there.
// Every check is made afresh per request, so a changed role or a removal counts at once.
import type { Databases } from '../../db/databases.js';
import { AppError } from '../../errors.js';
import type { Company, Membership } from '../../generated/prisma/client.js';
import type { Mode, TeamRole } from '../../generated/prisma/enums.js';
import { isId } from '../../ids.js';

export type Role = 'owner' | TeamRole;

export const ROLES: readonly Role[] = ['owner', 'admin', 'staff', 'viewer'];

/** The roles that may manage credentials, the team, the sandbox, and approve OAuth consent. */
export const isManager = (role: Role): boolean => role === 'owner' || role === 'admin';

export interface CompanyAccess {
  company: Company;
  role: Role;
  /** A staff member's employee (of this company, in this mode); null for every other role. */
  staffEmployeeId: string | null;
}

export const staffEmployeeOf = (m: Pick<Membership, 'liveEmployeeId' | 'testEmployeeId'>, mode: Mode) =>
  mode === 'live' ? m.liveEmployeeId : m.testEmployeeId;

/**
 * The companies of one mode a person sees: their own (owner), every company of a team they are
 * admin or viewer of, and their employee's company for a staff membership. Oldest first.
 */
export async function listAccessibleCompanies(
  dbs: Databases,
  opts: { accountId: string; mode: Mode },
): Promise<CompanyAccess[]> {
  const db = dbs.forMode(opts.mode);
  const memberships = await dbs.live.prisma.membership.findMany({ where: { memberAccountId: opts.accountId } });
  const teams = memberships.filter((m) => m.role !== 'staff').map((m) => m.teamAccountId);
  const staff = memberships.filter((m) => m.role === 'staff' && staffEmployeeOf(m, opts.mode));
  const employees = staff.length
    ? await db.employee.findMany({
        where: { id: { in: staff.map((m) => staffEmployeeOf(m, opts.mode)!) } },
        select: { id: true, companyId: true },
      })
    : [];
  const companies = await db.company.findMany({
    where: {
      mode: opts.mode,
      OR: [
        { accountId: { in: [opts.accountId, ...teams] } },
        ...(employees.length ? [{ id: { in: employees.map((e) => e.companyId) } }] : []),
      ],
    },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
  const out: CompanyAccess[] = [];
  for (const company of companies) {
    const access = accessOf(company, opts.accountId, opts.mode, memberships, employees);
    if (access) out.push(access);
  }
  return out;
}

/** One company of the mode with the person's role in it, else NOT_FOUND (as for another tenant's). */
export async function findCompanyAccess(
  dbs: Databases,
  opts: { accountId: string; mode: Mode; id: unknown },
): Promise<CompanyAccess> {
  const db = dbs.forMode(opts.mode);
  const company = isId(opts.id) ? await db.company.findFirst({ where: { id: opts.id, mode: opts.mode } }) : null;
  if (company) {
    if (company.accountId === opts.accountId) return { company, role: 'owner', staffEmployeeId: null };
    const membership = await dbs.live.prisma.membership.findUnique({
      where: { teamAccountId_memberAccountId: { teamAccountId: company.accountId, memberAccountId: opts.accountId } },
    });
    const employeeId = membership && staffEmployeeOf(membership, opts.mode);
    const employees =
      membership?.role === 'staff' && employeeId
        ? await db.employee.findMany({ where: { id: employeeId }, select: { id: true, companyId: true } })
        : [];
    const access = membership && accessOf(company, opts.accountId, opts.mode, [membership], employees);
    if (access) return access;
  }
  throw AppError.notFound('company');
}

function accessOf(
  company: Company,
  accountId: string,
  mode: Mode,
  memberships: Membership[],
  employees: Array<{ id: string; companyId: string }>,
): CompanyAccess | null {
  if (company.accountId === accountId) return { company, role: 'owner', staffEmployeeId: null };
  const m = memberships.find((x) => x.teamAccountId === company.accountId);
  if (!m) return null;
  if (m.role !== 'staff') return { company, role: m.role, staffEmployeeId: null };
  const employee = employees.find((e) => e.id === staffEmployeeOf(m, mode));
  return employee && employee.companyId === company.id
    ? { company, role: 'staff', staffEmployeeId: employee.id }
    : null;
}

/** The person's role in a team (the owning account's id): owner for their own, else their membership's. */
export async function teamRoleOf(
  dbs: Databases,
  opts: { accountId: string; teamAccountId: string },
): Promise<Role | null> {
  if (opts.accountId === opts.teamAccountId) return 'owner';
  const m = await dbs.live.prisma.membership.findUnique({
    where: { teamAccountId_memberAccountId: { teamAccountId: opts.teamAccountId, memberAccountId: opts.accountId } },
  });
  return m?.role ?? null;
}
