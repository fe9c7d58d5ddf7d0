// The coarse role rules of the admin area (docs/admin.md, Team and roles), applied once by the
// guard in index.ts to every company page, so a page needs no code of its own to honour them:
// - a viewer reads: any form post is refused;
// - staff see the sections of their day (bookings, calendar, customers, classes) and their own
//   staff page, nothing else;
// - the integrator sections (credentials, the team, the audit log, request logs) are the owner's
//   and admins' only.
// A refused request is a 403 page and nothing is done. Pages then narrow what staff see (their
// employee's bookings and customers) with the scope's staffEmployeeId.
import type { Role } from '../schema/team/index.js';
import { deepFreeze } from '../frozen.js';

/** Sections only the owner and admins may open. */
export const MANAGER_SECTIONS = deepFreeze(new Set(['api-keys', 'webhooks', 'request-logs', 'team', 'audit']));

/** Sections staff may open (besides their own staff page). */
export const STAFF_SECTIONS = deepFreeze(new Set(['bookings', 'calendar', 'customers', 'classes']));

export interface Refusal {
  title: string;
  message: string;
}

const READ_ONLY: Refusal = {
  title: 'Read only',
  message: 'Your role in this team is viewer: read only. Ask an owner or admin to make this change.',
};
const NOT_YOUR_ROLE = (role: Role): Refusal => ({
  title: 'Not allowed',
  message: `Your role in this team (${role}) does not allow this page or action.`,
});

/**
 * Whether `role` may make this request of a company page; `rest` is the path after
 * `/admin/:mode/companies/:companyId/`, split on slashes ([] for the company's own page).
 */
export function refusalFor(
  access: { role: Role; staffEmployeeId: string | null },
  method: string,
  rest: string[],
): Refusal | null {
  const { role } = access;
  const section = rest[0] ?? '';
  const write = method !== 'GET' && method !== 'HEAD';
  if (role === 'owner' || role === 'admin') return null;
  if (MANAGER_SECTIONS.has(section)) return NOT_YOUR_ROLE(role);
  if (role === 'viewer') return write ? READ_ONLY : null;
  // Staff.
  if (STAFF_SECTIONS.has(section)) return null;
  if (section === 'staff' && rest[1] && rest[1] === access.staffEmployeeId) return null;
  return NOT_YOUR_ROLE(role);
}
