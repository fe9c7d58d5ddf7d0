// The consent page (docs/oauth.md): names the client and lists the scopes it asks for, a select
// labelled Company when the user has several (starting at "Choose a company": none is preselected),
// and the buttons Approve and Deny (Deny needs no company: it skips the form's validation). The request's
// parameters travel in hidden fields and are validated again when the form comes back.
// Opt-in scopes (logs:read) are a checkbox that is never preselected: granted only when ticked.
import { OPT_IN_SCOPES, type Scope } from '../scopes.js';
import { HiddenInputs, Page, renderDocument } from './html.js';

export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  'company:read': 'See the company profile',
  'company:write': 'Change the company profile',
  'bookings:read': 'See bookings',
  'bookings:write': 'Create, change and cancel bookings',
  'customers:read': 'See customers',
  'customers:write': 'Create, change and delete customers',
  'employees:read': 'See employees and their working hours',
  'employees:write': 'Change employees and their working hours',
  'services:read': 'See services and classes',
  'services:write': 'Change services and classes',
  'availability:read': 'See free slots',
  'payments:read': 'See payments',
  'payments:write': 'Take and refund payments',
  'webhooks:read': 'See webhook endpoints and deliveries',
  'webhooks:write': 'Change webhook endpoints',
  'events:read': 'See the event history',
  'emails:read': 'See the sandbox e-mail log',
  'logs:read': 'See the request logs: what the company\u2019s integrations sent and were answered',
};

export interface CompanyChoice {
  value: string;
  label: string;
}

export interface ConsentPageOptions {
  action: string;
  clientName: string;
  redirectHost: string;
  accountEmail: string;
  scopes: Scope[];
  companies: CompanyChoice[];
  csrfToken: string;
  params: Record<string, string | undefined>;
}

/** The form field that carries the opt-in scopes a person ticked. */
export const OPT_IN_FIELD = 'grant_scope';

function ScopeItem({ scope }: { scope: Scope }) {
  const label = (
    <>
      {SCOPE_DESCRIPTIONS[scope]} (<code>{scope}</code>)
    </>
  );
  if (!OPT_IN_SCOPES.has(scope)) return <li>{label}</li>;
  const id = `grant-${scope.replace(/[^a-z]/g, '-')}`;
  return (
    <li>
      <input type="checkbox" id={id} name={OPT_IN_FIELD} value={scope} />{' '}
      <label for={id}>{label}, only if you tick it</label>
    </li>
  );
}

export function consentPage(o: ConsentPageOptions): string {
  const only = o.companies.length === 1 ? o.companies[0]! : null;
  return renderDocument(
    <Page title={`Authorize ${o.clientName}`}>
      <h1>
        <strong>{o.clientName}</strong> wants access to your account
      </h1>
      <p>Signed in as {o.accountEmail}.</p>
      <form method="post" action={o.action}>
        <HiddenInputs fields={{ ...o.params, csrf_token: o.csrfToken }} />
        <p id="scopes-heading">It will be able to:</p>
        <ul class="scopes" aria-labelledby="scopes-heading">
          {o.scopes.map((s) => (
            <ScopeItem scope={s} />
          ))}
        </ul>
        {only ? (
          <>
            <p>
              For <strong>{only.label}</strong>
            </p>
            <HiddenInputs fields={{ company: only.value }} />
          </>
        ) : (
          <>
            <label for="company">Company</label>
            <select id="company" name="company" required>
              <option value="" selected>
                Choose a company
              </option>
              {o.companies.map((c) => (
                <option value={c.value}>{c.label}</option>
              ))}
            </select>
          </>
        )}
        <p>
          You will be sent back to <strong>{o.redirectHost}</strong>.
        </p>
        <button type="submit" name="decision" value="approve">
          Approve
        </button>
        <button type="submit" name="decision" value="deny" formnovalidate>
          Deny
        </button>
      </form>
    </Page>,
  );
}
