// What a live payment may be paid with (docs/api.md): a token the processor issued to the
// integration's front end, never card data. A card number sent where a token belongs would be
// stored on the payment and sent on to the processor in clear, so anything that looks like one
// is refused before any other check, with a message that does not repeat it.

/**
 * Stripe's shapes: a PaymentMethod id (`pm_...`), which a PaymentIntent takes as is, or a card
 * Token (`tok_...`) from Stripe.js's older createToken, which becomes a PaymentMethod first.
 */
export const PAYMENT_METHOD_TOKEN_PATTERN = '^(pm|tok)_[A-Za-z0-9_]{1,250}$';
const TOKEN = new RegExp(PAYMENT_METHOD_TOKEN_PATTERN);

export function isPaymentMethodToken(value: string): boolean {
  return TOKEN.test(value);
}

/** The Luhn check digit test (ISO/IEC 7812-1), which every payment card number passes. */
export function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return digits.length > 0 && sum % 10 === 0;
}

// 12 to 19 digits, as card numbers are (ISO/IEC 7812), optionally grouped by spaces or dashes.
const CARD_RUN = /\d(?:[ -]?\d){11,18}/g;

/**
 * True for a value made of 12–19 digits (spaces and dashes aside), and for any value holding
 * such a run of digits that passes the Luhn check (a card number with something around it).
 */
export function looksLikeCardNumber(value: string): boolean {
  if (/^[\d\s-]+$/.test(value)) {
    const digits = value.replace(/\D/g, '');
    if (digits.length >= 12 && digits.length <= 19) return true;
  }
  for (const run of value.match(CARD_RUN) ?? []) {
    if (passesLuhn(run.replace(/\D/g, ''))) return true;
  }
  return false;
}
