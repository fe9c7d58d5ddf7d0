// The sandbox's payment simulator (docs/sandbox.md, Test cards): a payment processor's
// published test cards for the three scenarios. Any future expiry, any 3-digit CVC; any other
// number, a past expiry or a bad CVC is a 400. Only the brand and last four digits are kept.
import { AppError, type FieldError } from '../errors.js';

export const TEST_CARDS: Record<
  string,
  { outcome: 'succeeded' | 'card_declined' | 'insufficient_funds'; brand: string }
> = {
  '4242424242424242': { outcome: 'succeeded', brand: 'visa' },
  '4000000000000002': { outcome: 'card_declined', brand: 'visa' },
  '4000000000009995': { outcome: 'insufficient_funds', brand: 'visa' },
};

export interface TestCard {
  number: string;
  expMonth: number;
  expYear: number;
  cvc: string;
}

export interface SimulatedCharge {
  outcome: 'succeeded' | 'card_declined' | 'insufficient_funds';
  brand: string;
  last4: string;
}

/** Judges a test card; never echoes the number in an error (it could be a real one). */
export function simulateCard(card: TestCard, now = new Date()): SimulatedCharge {
  const errors: FieldError[] = [];
  const known = typeof card.number === 'string' ? TEST_CARDS[card.number] : undefined;
  if (!known) {
    errors.push({
      path: 'card.number',
      message:
        'is not a sandbox test card: use 4242424242424242 (succeeds), 4000000000000002 (declined) or 4000000000009995 (insufficient funds)',
    });
  }
  const monthOk = Number.isInteger(card.expMonth) && card.expMonth >= 1 && card.expMonth <= 12;
  if (!monthOk) errors.push({ path: 'card.expMonth', message: 'must be an integer from 1 to 12' });
  if (!Number.isInteger(card.expYear) || card.expYear < 1000 || card.expYear > 9999) {
    errors.push({ path: 'card.expYear', message: 'must be a four-digit year' });
  } else if (monthOk) {
    // A card is valid through the last day of its expiry month.
    const y = now.getUTCFullYear();
    const m = now.getUTCMonth() + 1;
    if (card.expYear < y || (card.expYear === y && card.expMonth < m))
      errors.push({ path: 'card.expYear', message: 'the card has expired' });
  }
  if (typeof card.cvc !== 'string' || !/^\d{3}$/.test(card.cvc))
    errors.push({ path: 'card.cvc', message: 'must be 3 digits' });
  if (errors.length) throw AppError.validation(errors);
  return { outcome: known!.outcome, brand: known!.brand, last4: card.number.slice(-4) };
}
