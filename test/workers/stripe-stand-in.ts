// A local stand-in for the payment processor's HTTP API, enough for the `stripe` client's
// calls we make (create-and-confirm a PaymentIntent, create a Refund). The real client library
// talks to it over a real socket.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StripeCall {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  form: URLSearchParams;
}

export async function startStripeStandIn() {
  const calls: StripeCall[] = [];
  let unavailable = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      calls.push({ method: req.method!, path: req.url!, headers: req.headers, form });
      const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json', 'request-id': 'req_standin' }).end(JSON.stringify(body));
      if (unavailable > 0) {
        unavailable--;
        return json(500, { error: { type: 'api_error', message: 'stand-in outage' } });
      }
      if (req.method === 'POST' && req.url === '/v1/payment_intents') {
        const pm = form.get('payment_method');
        const id = `pi_${calls.length}`;
        if (pm === 'pm_card_visa') {
          return json(200, {
            id, object: 'payment_intent', status: 'succeeded', amount: Number(form.get('amount')), currency: form.get('currency'),
            payment_method: { id: pm, object: 'payment_method', type: 'card', card: { brand: 'visa', last4: '4242' } },
          });
        }
        const decline = pm === 'pm_card_visa_chargeDeclinedInsufficientFunds' ? 'insufficient_funds' : 'generic_decline';
        return json(402, { error: { type: 'card_error', code: 'card_declined', decline_code: decline, message: 'Your card was declined.', payment_intent: { id, object: 'payment_intent', status: 'requires_payment_method' } } });
      }
      if (req.method === 'POST' && req.url === '/v1/refunds') {
        return json(200, { id: `re_${calls.length}`, object: 'refund', status: 'succeeded', payment_intent: form.get('payment_intent') });
      }
      json(404, { error: { type: 'invalid_request_error', message: `No such route ${req.url}` } });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    failNext(n: number) {
      unavailable = n;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
