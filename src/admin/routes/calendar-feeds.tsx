// Company > Staff: the calendar feeds (docs/calendars.md). The staff list shows the company's
// feed, each employee's page that employee's: the URL again (opened from its sealed copy) and
// a form that creates or rotates it, with includeNotes. Rotating runs the use case the API's
// POST …/calendar-feed/rotate runs.
import type { FastifyInstance } from 'fastify';
import { findCalendarFeed, rotateCalendarFeed } from '../../schema/calendars/index.js';
import type { Services } from '../../services.js';
import { TimeTag } from '../http.js';
import { companyPath, CsrfField, mayWrite } from '../layout.js';
import { formOf, paramsOf, type CompanyScope, companyRoutes } from '../scope.js';

/** The feed's section of a staff page: its URL, or an offer to make one. */
export async function feedPanel(s: CompanyScope, services: Services, employeeId: string | null) {
  const feed = await findCalendarFeed(s.db, { config: services.config, companyId: s.company.id, employeeId });
  const action = companyPath(s.company, employeeId ? `/staff/${employeeId}/calendar-feed` : '/staff/calendar-feed');
  const whose = employeeId ? 'this employee’s bookings' : 'every employee’s bookings';
  return (
    <>
      <h2>Calendar feed</h2>
      <p class="muted">
        A secret address that Google Calendar, Apple Calendar or Outlook subscribe to, showing {whose} from 30 days back
        to 180 days ahead. Anyone with it can read the feed: if it leaks, make a new one.
      </p>
      {feed ? (
        <dl class="fields">
          <dt>URL</dt>
          <dd>
            <code class="feed-url">{feed.url}</code>
          </dd>
          <dt>Notes</dt>
          <dd>{feed.includeNotes ? 'Booking notes are shown' : 'Booking notes are left out'}</dd>
          <dt>Made</dt>
          <dd>
            <TimeTag at={feed.rotatedAt} zone={s.company.timezone} />
          </dd>
        </dl>
      ) : (
        <p class="empty">No calendar feed yet.</p>
      )}
      {mayWrite(s.ctx) && (
        <form method="post" action={action}>
          <CsrfField token={s.ctx.csrfToken} />
          <p>
            <label>
              <input type="checkbox" name="includeNotes" value="true" checked={!!feed?.includeNotes} /> Show booking
              notes in the feed
            </label>
          </p>
          <button type="submit">
            {feed ? 'Make a new URL (the current one stops working)' : 'Create calendar feed'}
          </button>
        </form>
      )}
    </>
  );
}

export function registerCalendarFeedRoutes(app: FastifyInstance, services: Services): void {
  const pages = companyRoutes(app, services, 'staff');
  const base = '/:mode/companies/:companyId/staff';
  const rotate = async (s: CompanyScope, employeeId: string | undefined, includeNotes: boolean) =>
    rotateCalendarFeed(s.db, {
      config: services.config,
      mode: s.mode,
      companyId: s.company.id,
      employeeId,
      input: { includeNotes },
    });

  pages.post(`${base}/calendar-feed`, async (s, req, reply) => {
    await rotate(s, undefined, formOf(req).includeNotes === 'true');
    req.log.info({ companyId: s.company.id }, 'admin rotated the company calendar feed');
    return reply.redirect(companyPath(s.company, '/staff?done=feed'), 303);
  });

  pages.post(`${base}/:employeeId/calendar-feed`, async (s, req, reply) => {
    // The use case finds the employee within the company, or answers NOT_FOUND (a 404 page).
    const employeeId = paramsOf(req).employeeId ?? '';
    await rotate(s, employeeId, formOf(req).includeNotes === 'true');
    req.log.info({ companyId: s.company.id, employeeId }, 'admin rotated an employee calendar feed');
    return reply.redirect(companyPath(s.company, `/staff/${employeeId}?done=feed`), 303);
  });
}
