// The CLI's half of the bridge (bridge.ts): sends a command and its parsed options to the
// running server of the same embedded data directory, instead of opening the database.
import type { Command, CommandFailure, Values } from './commands.js';
import { BRIDGE_PREFIX, type ServerFile } from './server-file.js';

export type Outcome = { ok: true; result: unknown } | { ok: false; failure: CommandFailure };

export async function runThroughServer(server: ServerFile, command: Command, values: Values): Promise<Outcome> {
  const url = `${server.url}${BRIDGE_PREFIX}${command.name.split(' ').join('/')}`;
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.credential}`, 'content-type': 'application/json' },
      body: JSON.stringify(values),
    });
  } catch (err) {
    const reason = (err as Error & { cause?: Error }).cause?.message ?? (err as Error).message;
    return {
      ok: false,
      failure: {
        message: `could not reach the server (pid ${server.pid}) that holds the data directory at ${server.url}: ${reason}. If it has just stopped, run the command again.`,
      },
    };
  }
  const body = (await res.json().catch(() => null)) as {
    status?: unknown;
    data?: unknown;
    error?: CommandFailure;
  } | null;
  if (res.ok && body?.status === true) return { ok: true, result: body.data };
  if (body?.error && typeof body.error.message === 'string') return { ok: false, failure: body.error };
  return {
    ok: false,
    failure: { message: `unexpected answer from the server (pid ${server.pid}): HTTP ${res.status}` },
  };
}
