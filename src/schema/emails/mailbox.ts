// A customer's mailbox as it goes on an e-mail. The recipient is always the stored address,
// handed to nodemailer as a structured { name, address } and never a header string for it to
// parse: a display name is free text typed by whoever made the booking, and "x
// <attacker@evil.example>" or "a@b.example, c@d.example" inside one would otherwise become the
// recipient. The To header we log is built by the same rules nodemailer applies on the wire:
// RFC 5322 §3.2.5/§3.4 (an atom phrase as is, other printable ASCII as a quoted-string) and
// RFC 2047 encoded-words for anything else.
import { encodeWord, quoteString } from 'nodemailer/lib/mime-funcs';

export interface Mailbox {
  name: string;
  address: string;
}

/**
 * A display name fit for a header: control characters (a name may hold line breaks, which
 * would end the header) become spaces, runs of white space one space.
 */
export function displayName(name: string): string {
  return (
    name
      // eslint-disable-next-line no-control-regex -- control characters are what this removes
      .replace(/[\u0000-\u001f\u007f]+/g, ' ')
      .replace(/\s+/g, ' ')
      .trim()
  );
}

/** The mailbox as an RFC 5322 header value: `Name <address>`, the name quoted or encoded as needed. */
export function formatMailbox(m: Mailbox): string {
  const name = displayName(m.name);
  if (!name) return `<${m.address}>`;
  // Letters, digits, _ and spaces need nothing; every other printable ASCII character
  // (specials such as < > , @ " ; included) is safe only inside a quoted-string.
  if (/^[A-Za-z0-9_ ]+$/.test(name)) return `${name} <${m.address}>`;
  if (/^[\x20-\x7e]+$/.test(name)) return `${quoteString(name)} <${m.address}>`;
  return `${encodeWord(name, 'B', 52)} <${m.address}>`;
}
