// Live payments through the `stripe` client (docs/api.md): the integration sends a payment-method
// token it got from the processor's own front-end library; raw card numbers never reach us.
// STRIPE_API_URL points the client elsewhere (tests run a local stand-in of the API).
import Stripe from 'stripe';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';

export interface ChargeResult {
  status: 'succeeded' | 'failed';
  failureCode: string | null;
  failureMessage: string | null;
  processorRef: string | null;
  brand: string | null;
  last4: string | null;
}

// eslint-disable-next-line no-restricted-syntax -- process state: per-configuration clients
const clients = new WeakMap<Config, Stripe>();

export function stripeClient(config: Config): Stripe {
  if (!config.STRIPE_SECRET_KEY)
    throw new AppError('SERVICE_UNAVAILABLE', 'Live payments are not configured', {
      headers: { 'retry-after': '3600' },
    });
  let client = clients.get(config);
  if (!client) {
    const api = config.STRIPE_API_URL ? new URL(config.STRIPE_API_URL) : null;
    client = new Stripe(config.STRIPE_SECRET_KEY, {
      maxNetworkRetries: 2,
      timeout: 20_000,
      ...(api
        ? {
            host: api.hostname,
            port: Number(api.port || (api.protocol === 'https:' ? 443 : 80)),
            protocol: api.protocol.replace(':', '') as 'http' | 'https',
          }
        : {}),
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
  p: {
    id: string;
    amount: number;
    currency: string;
    paymentMethod: string;
    bookingId: string | null;
    visitId: string | null;
  },
): Promise<ChargeResult> {
  const stripe = stripeClient(config);
  try {
    // A PaymentIntent takes a PaymentMethod; a card Token (Stripe.js createToken) becomes one
    // first, under its own idempotency key so a retried job reuses the same PaymentMethod.
    const paymentMethod = p.paymentMethod.startsWith('tok_')
      ? (
          await stripe.paymentMethods.create(
            { type: 'card', card: { token: p.paymentMethod } },
            { idempotencyKey: `payment-method-${p.id}` },
          )
        ).id
      : p.paymentMethod;
    const intent = await stripe.paymentIntents.create(
      {
        amount: p.amount,
        currency: p.currency.toLowerCase(),
        payment_method: paymentMethod,
        confirm: true,
        automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
        metadata: {
          paymentId: p.id,
          ...(p.bookingId ? { bookingId: p.bookingId } : {}),
          ...(p.visitId ? { visitId: p.visitId } : {}),
        },
        expand: ['payment_method'],
      },
      { idempotencyKey: `payment-${p.id}` },
    );
    const pm = typeof intent.payment_method === 'object' ? intent.payment_method : null;
    const brand = pm?.card?.brand ?? null;
    const last4 = pm?.card?.last4 ?? null;
    if (intent.status === 'succeeded')
      return { status: 'succeeded', failureCode: null, failureMessage: null, processorRef: intent.id, brand, last4 };
    const failureMessage = intent.last_payment_error?.message ?? `The payment ended ${intent.status}`;
    return {
      status: 'failed',
      failureCode: intent.last_payment_error?.code ?? intent.status,
      failureMessage,
      processorRef: intent.id,
      brand,
      last4,
    };
  } catch (err) {
    const verdict = err instanceof Stripe.errors.StripeError ? permanentFailure(err) : null;
    if (verdict) return verdict;
    // No verdict (network, 5xx, 409, 429, lock_timeout): the caller retries, a bounded number of times.
    throw err;
  }
}

/**
 * Whether a processor error says no to this payment for good. Stripe's 4xx answers do (card
 * errors, invalid_request_error such as an unknown payment method, authentication and
 * permission errors): repeating the request gets the same answer, so the payment fails now
 * rather than staying processing and holding the booking's one live payment
 * (payments_one_live_per_booking). A 409 (an idempotent request still in flight), 429 (rate
 * limit, lock_timeout), a 5xx or no answer at all settles nothing: null, and the caller retries.
 * https://docs.stripe.com/error-handling
 */
export function permanentFailure(err: InstanceType<typeof Stripe.errors.StripeError>): ChargeResult | null {
  const status = err.statusCode;
  if (status === undefined || status < 400 || status >= 500 || status === 409 || status === 429) return null;
  if (err instanceof Stripe.errors.StripeRateLimitError || err.code === 'lock_timeout') return null;
  const intentId = (err.payment_intent as { id?: string } | undefined)?.id ?? null;
  const failed = (failureCode: string, failureMessage: string): ChargeResult => ({
    status: 'failed',
    failureCode,
    failureMessage,
    processorRef: intentId,
    brand: null,
    last4: null,
  });
  if (err instanceof Stripe.errors.StripeCardError) {
    // The sandbox's codes: insufficient_funds when the issuer says so, else the error code.
    return failed(
      err.decline_code === 'insufficient_funds' ? 'insufficient_funds' : (err.code ?? 'card_declined'),
      err.message,
    );
  }
  // Our own credentials: Stripe's message quotes part of the key, so it is not passed on.
  if (err instanceof Stripe.errors.StripeAuthenticationError)
    return failed('processor_authentication_error', "The payment processor refused this service's credentials");
  if (err instanceof Stripe.errors.StripePermissionError)
    return failed('processor_permission_error', 'The payment processor does not let this service take this payment');
  return failed(err.code ?? err.rawType ?? 'invalid_request_error', err.message);
}

/** A processor error that repeating the request cannot change (see permanentFailure). */
export function isPermanentProcessorError(err: unknown): boolean {
  return err instanceof Stripe.errors.StripeError && permanentFailure(err) !== null;
}

/** Stripe's answer when the charge was refunded already (by us before, or in its dashboard). */
export function isAlreadyRefunded(err: unknown): boolean {
  return err instanceof Stripe.errors.StripeError && err.code === 'charge_already_refunded';
}

/** Refunds `amount` of a charge (Stripe takes partial refunds) under the caller's idempotency key. */
export async function refundWithStripe(
  config: Config,
  p: { processorRef: string; amount: number; idempotencyKey: string },
): Promise<void> {
  await stripeClient(config).refunds.create(
    { payment_intent: p.processorRef, amount: p.amount },
    { idempotencyKey: p.idempotencyKey },
  );
}
