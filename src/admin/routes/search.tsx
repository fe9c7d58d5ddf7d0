// Company > Search (docs/admin.md, Search): the one box in the top bar of every company page.
// An id finds the booking, payment, customer or visit that has it (one probe of each primary
// key, findAnyById), and one exact hit opens it at once; anything else is a customer search by
// the start of a name, an e-mail or a phone number (searchCustomers, as GET /api/v1/customers?q=).
import type { FastifyInstance } from 'fastify';
import { isAppError } from '../../errors.js';
import { isId } from '../../ids.js';
import { searchCustomers } from '../../schema/customers/index.js';
import { findAnyById } from '../../schema/find-records.js';
import type { Services } from '../../services.js';
import { money, sendAdmin, TimeTag } from '../http.js';
import { adminPage, companyPath } from '../layout.js';
import { queryOf, companyRoutes } from '../scope.js';

const LIMIT = 20;

export function registerSearchRoutes(app: FastifyInstance, services: Services): void {
  const pages = companyRoutes(app, services, 'search');
  pages.get('/:mode/companies/:companyId/search', async (s, req, reply) => {
    const q = (queryOf(req).q ?? '').trim();
    const path = (rest: string) => companyPath(s.company, rest);
    const zone = s.company.timezone;
    const byId = isId(q.toLowerCase()) ? await findAnyById(s.db, s.company.id, q.toLowerCase()) : null;
    const hits = byId
      ? [
          byId.booking && path(`/bookings/${byId.booking.id}`),
          byId.payment && path(`/payments/${byId.payment.id}`),
          byId.customer && path(`/customers/${byId.customer.id}`),
          byId.visit && byId.visit.customer && path(`/customers/${byId.visit.customer.id}`),
        ].filter((h): h is string => !!h)
      : [];
    if (hits.length === 1) return reply.redirect(hits[0]!, 303);
    let customers: Awaited<ReturnType<typeof searchCustomers>>['data'] = [];
    let error: string | null = null;
    if (q && !byId) {
      try {
        customers = (await searchCustomers(s.db, { companyId: s.company.id, q, limit: LIMIT })).data;
      } catch (err) {
        if (!isAppError(err) || err.status !== 400) throw err;
        error = 'The search is too long; type at most 200 characters.';
      }
    }
    const nothing = q && !error && hits.length === 0 && customers.length === 0;
    const body = (
      <>
        <h1>Search</h1>
        {!q && (
          <p>Type a booking, payment or customer id, or the start of a customer's name, e-mail or phone number.</p>
        )}
        {error && (
          <p class="notice error" role="alert">
            {error}
          </p>
        )}
        {nothing && (
          <p class="empty" role="status">
            {byId
              ? `Nothing of this company has the id “${q}”.`
              : `No customer's name, e-mail or phone starts with “${q}”.`}
          </p>
        )}
        {byId && hits.length > 1 && (
          <ul class="results">
            {byId.booking && (
              <li>
                Booking: <a href={path(`/bookings/${byId.booking.id}`)}>{byId.booking.service.name}</a> for{' '}
                {byId.booking.customer.name}, <TimeTag at={byId.booking.startTime} zone={zone} />
              </li>
            )}
            {byId.payment && (
              <li>
                Payment:{' '}
                <a href={path(`/payments/${byId.payment.id}`)}>{money(byId.payment.amount, byId.payment.currency)}</a>
              </li>
            )}
            {byId.customer && (
              <li>
                Customer: <a href={path(`/customers/${byId.customer.id}`)}>{byId.customer.name}</a>
              </li>
            )}
          </ul>
        )}
        {customers.length > 0 && (
          <>
            <h2>Customers</h2>
            <ul class="results">
              {customers.map((c) => (
                <li>
                  <a href={path(`/customers/${c.id}`)}>{c.name}</a>{' '}
                  <span class="muted">
                    {c.erasedAt ? 'erased' : c.email}
                    {c.phone && !c.erasedAt ? ` · ${c.phone}` : ''}
                  </span>
                </li>
              ))}
            </ul>
            {customers.length === LIMIT && (
              <p>
                <a href={`${path('/customers')}?q=${encodeURIComponent(q)}`}>More customers in the list…</a>
              </p>
            )}
          </>
        )}
      </>
    );
    return sendAdmin(reply, error ? 400 : 200, adminPage({ ...s.ctx, search: q }, 'Search', body));
  });
}
