// Live payments through the `stripe` client (API.md §5): the integration sends a payment-method
// token it got from the processor's own front-end library; raw card numbers never reach us.
// STRIPE_API_URL points the client elsewhere (tests run a local stand-in of the API).
import Stripe from 'stripe';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';

export interface ChargeResult {
  status: 'succeeded' | 'failed';
  failureCode: string | null;
  processorRef: string | null;
  brand: string | null;
  last4: string | null;
}

const clients = new WeakMap<Config, Stripe>();

export function stripeClient(config: Config): Stripe {
  if (!config.STRIPE_SECRET_KEY) throw new AppError('SERVICE_UNAVAILABLE', 'Live payments are not configured', { headers: { 'retry-after': '3600' } });
  let client = clients.get(config);
  if (!client) {
    const api = config.STRIPE_API_URL ? new URL(config.STRIPE_API_URL) : null;
    client = new Stripe(config.STRIPE_SECRET_KEY, {
      maxNetworkRetries: 2,
      timeout: 20_000,
      ...(api ? { host: api.hostname, port: Number(api.port || (api.protocol === 'https:' ? 443 : 80)), protocol: api.protocol.replace(':', '') as 'http' | 'https' } : {}),
    });
    clients.set(config, client);
  }
  return client;
}

/**
 * Charges a payment method once: the payment's id is the idempotency key, so a retried job
 * (or a second worker) gets the processor's first answer back rather than a second charge.
 */
export async function chargeWithStripe(
  config: Config,
  p: { id: string; amount: number; currency: string; paymentMethod: string; bookingId: string },
): Promise<ChargeResult> {
  const stripe = stripeClient(config);
  try {
    // A PaymentIntent takes a PaymentMethod; a card Token (Stripe.js createToken) becomes one
    // first, under its own idempotency key so a retried job reuses the same PaymentMethod.
    const paymentMethod = p.paymentMethod.startsWith('tok_')
      ? (await stripe.paymentMethods.create({ type: 'card', card: { token: p.paymentMethod } }, { idempotencyKey: `payment-method-${p.id}` })).id
      : p.paymentMethod;
    const intent = await stripe.paymentIntents.create(
      {
        amount: p.amount,
        currency: p.currency.toLowerCase(),
        payment_method: paymentMethod,
        confirm: true,
        automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
        metadata: { paymentId: p.id, bookingId: p.bookingId },
        expand: ['payment_method'],
      },
      { idempotencyKey: `payment-${p.id}` },
    );
    const pm = typeof intent.payment_method === 'object' ? intent.payment_method : null;
    const brand = pm?.card?.brand ?? null;
    const last4 = pm?.card?.last4 ?? null;
    if (intent.status === 'succeeded') return { status: 'succeeded', failureCode: null, processorRef: intent.id, brand, last4 };
    return { status: 'failed', failureCode: intent.last_payment_error?.code ?? intent.status, processorRef: intent.id, brand, last4 };
  } catch (err) {
    // A card error is a verdict; anything else (network, 5xx) is thrown so the job retries.
    if (err instanceof Stripe.errors.StripeCardError) {
      // The sandbox's codes: insufficient_funds when the issuer says so, else the error code.
      const failureCode = err.decline_code === 'insufficient_funds' ? 'insufficient_funds' : (err.code ?? 'card_declined');
      return { status: 'failed', failureCode, processorRef: (err.payment_intent as { id?: string } | undefined)?.id ?? null, brand: null, last4: null };
    }
    throw err;
  }
}

export async function refundWithStripe(config: Config, p: { id: string; processorRef: string }): Promise<void> {
  await stripeClient(config).refunds.create({ payment_intent: p.processorRef }, { idempotencyKey: `refund-${p.id}` });
}
