// A local stand-in for the payment processor's HTTP API, enough for the `stripe` client's
// calls we make (create-and-confirm a PaymentIntent, create a PaymentMethod from a card Token,
// create a Refund). The real client library talks to it over a real socket.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StripeCall {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  form: URLSearchParams;
}

// Stripe's test card Tokens and the test PaymentMethods they stand for.
const TOKENS: Record<string, string> = {
  tok_visa: 'pm_card_visa',
  tok_visa_chargeDeclinedInsufficientFunds: 'pm_card_visa_chargeDeclinedInsufficientFunds',
};

/**
 * How a failing request is answered: a 500 outage, Stripe's 429 lock_timeout, a 401 for our
 * key, or (for a refund) Stripe's 400 charge_already_refunded.
 */
type Failure = 'outage' | 'lock_timeout' | 'unauthorized' | 'already_refunded';

export async function startStripeStandIn() {
  const calls: StripeCall[] = [];
  // PaymentMethods made from card Tokens: id → the test PaymentMethod it behaves as.
  const madeFrom = new Map<string, string>();
  let unavailable = 0;
  let failure: Failure = 'outage';
  let failing: string | undefined;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      calls.push({ method: req.method!, path: req.url!, headers: req.headers, form });
      const json = (status: number, body: unknown) =>
        res
          .writeHead(status, { 'content-type': 'application/json', 'request-id': 'req_standin' })
          .end(JSON.stringify(body));
      if (unavailable > 0 && (failing === undefined || failing === req.url)) {
        unavailable--;
        if (failure === 'lock_timeout') {
          // Stripe's answer when another request holds the object: 429, code lock_timeout.
          return json(429, {
            error: {
              type: 'invalid_request_error',
              code: 'lock_timeout',
              doc_url: 'https://stripe.com/docs/error-codes/lock-timeout',
              message:
                'This object cannot be accessed right now because another API request or Stripe process is currently accessing it.',
            },
          });
        }
        if (failure === 'unauthorized') {
          // Stripe's answer to a revoked or mistyped secret key: 401, quoting part of the key.
          const key = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
          return json(401, {
            error: {
              type: 'invalid_request_error',
              message: `Invalid API Key provided: ${key.slice(0, 8)}****${key.slice(-4)}`,
            },
          });
        }
        if (failure === 'already_refunded') {
          // Stripe's answer when the charge was refunded before (by us, or in its dashboard).
          return json(400, {
            error: {
              type: 'invalid_request_error',
              code: 'charge_already_refunded',
              message: `Charge for ${form.get('payment_intent')} has already been refunded.`,
            },
          });
        }
        return json(500, { error: { type: 'api_error', message: 'stand-in outage' } });
      }
      if (req.method === 'POST' && req.url === '/v1/payment_methods') {
        // A card Token becomes a PaymentMethod that charges like the test card behind it.
        const token = form.get('card[token]') ?? '';
        const card = TOKENS[token];
        if (form.get('type') !== 'card' || !card) {
          return json(400, {
            error: {
              type: 'invalid_request_error',
              code: 'resource_missing',
              param: 'card[token]',
              message: `No such token: '${token}'`,
            },
          });
        }
        const id = `pm_${calls.length}_from_${token}`;
        madeFrom.set(id, card);
        return json(200, { id, object: 'payment_method', type: 'card', card: { brand: 'visa', last4: '4242' } });
      }
      if (req.method === 'POST' && req.url === '/v1/payment_intents') {
        const given = form.get('payment_method') ?? '';
        const pm = madeFrom.get(given) ?? given;
        const id = `pi_${calls.length}`;
        if (pm === 'pm_card_visa') {
          return json(200, {
            id,
            object: 'payment_intent',
            status: 'succeeded',
            amount: Number(form.get('amount')),
            currency: form.get('currency'),
            payment_method: { id: pm, object: 'payment_method', type: 'card', card: { brand: 'visa', last4: '4242' } },
          });
        }
        if (!/^pm_card(_visa)?_chargeDeclined/.test(pm)) {
          // Stripe's answer for a payment method it does not know (a typo, another account's,
          // the other mode's): 400 invalid_request_error, resource_missing; no PaymentIntent.
          return json(400, {
            error: {
              code: 'resource_missing',
              doc_url: 'https://stripe.com/docs/error-codes/resource-missing',
              message: `No such PaymentMethod: '${given}'`,
              param: 'payment_method',
              request_log_url: 'https://dashboard.stripe.com/test/logs/req_standin',
              type: 'invalid_request_error',
            },
          });
        }
        const decline = /InsufficientFunds$/.test(pm) ? 'insufficient_funds' : 'generic_decline';
        return json(402, {
          error: {
            type: 'card_error',
            code: 'card_declined',
            decline_code: decline,
            message: 'Your card was declined.',
            payment_intent: { id, object: 'payment_intent', status: 'requires_payment_method' },
          },
        });
      }
      if (req.method === 'POST' && req.url === '/v1/refunds') {
        return json(200, {
          id: `re_${calls.length}`,
          object: 'refund',
          status: 'succeeded',
          payment_intent: form.get('payment_intent'),
        });
      }
      json(404, { error: { type: 'invalid_request_error', message: `No such route ${req.url}` } });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    /** The next n requests (to `path` only, when given) fail as `kind` says. */
    failNext(n: number, kind: Failure = 'outage', path?: string) {
      unavailable = n;
      failure = kind;
      failing = path;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
