// How a failed command is reported, the same whether it ran here, in the server (bridge.ts)
// or against a server's API (api-run.ts). Only the error table: no domain, no database.
import { ERROR_STATUS, toAppError, type ErrorCode } from '../errors.js';

/** How a failed command is reported, the same whether it ran here or in the server. */
export interface CommandFailure {
  code?: string;
  message: string;
  details?: unknown;
}

/** The code and message every other surface gives for this cause (src/errors.ts). */
export function describeFailure(err: unknown): CommandFailure {
  const e = toAppError(err);
  return { code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) };
}

/**
 * The exit status of a failed command, from its code's HTTP status in the error table: a
 * refusal (4xx) or a failure without a code is 1; an outage is EX_TEMPFAIL (75, sysexits(3)),
 * worth retrying as it is; anything else is our fault, EX_SOFTWARE (70).
 */
export function exitStatus(f: CommandFailure): number {
  if (f.code === 'SERVICE_UNAVAILABLE') return 75;
  const status = f.code && f.code in ERROR_STATUS ? ERROR_STATUS[f.code as ErrorCode] : 0;
  return status >= 500 ? 70 : 1;
}

/** The field errors of a validation failure (`details` of VALIDATION_ERROR), if that is what they are. */
function fieldErrors(details: unknown): { path: string; message: string }[] | null {
  if (!Array.isArray(details)) return null;
  const ok = details.every(
    (d: unknown) =>
      typeof d === 'object' &&
      d !== null &&
      typeof (d as { message?: unknown }).message === 'string' &&
      typeof ((d as { path?: unknown }).path ?? '') === 'string',
  );
  return ok ? (details as { path: string; message: string }[]) : null;
}

/** One line: the code and message, then only what the message does not say already. */
export function failureLine(command: { name: string }, f: CommandFailure): string {
  const fields = fieldErrors(f.details);
  const details = fields
    ? fields
        .map((e) => `${e.path ? `${e.path}: ` : ''}${e.message}`)
        .filter((text) => !f.message.includes(text))
        .map((text) => `; ${text}`)
        .join('')
    : f.details
      ? ` ${JSON.stringify(f.details)}`
      : '';
  return `svc ${command.name}: ${f.code ? `${f.code}: ` : ''}${f.message}${details}`;
}
