// DATA_DIR/server.json: how `svc` reaches the server that holds an embedded data directory.
// The server writes it once it listens (its pid, the loopback URL of its CLI bridge and a
// random credential) and removes it when it stops; the file is the owner's alone (0600), and
// the server keeps only the credential's hash. A file whose process is gone was left by a kill:
// the CLI ignores it, and whoever holds the directory's lock next removes it.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { currentProcess, isRunning, type ProcessIdentity } from '../db/data-dir-lock.js';

export const SERVER_FILE = 'server.json';
/** The bridge's route: POST /internal/cli/<command words joined by />. */
export const BRIDGE_PREFIX = '/internal/cli/';

export interface ServerFile extends ProcessIdentity {
  /** The CLI bridge: http://127.0.0.1:<port>. */
  url: string;
  /** Bearer credential for the bridge. */
  credential: string;
  /** The server's own API origin on this machine (what `svc listen` and `svc trigger` talk to). */
  apiUrl?: string;
  since: string;
}

export interface LocalCredential {
  secret: string;
  /** SHA-256 of the secret: all the server keeps. */
  hash: Buffer;
}

export const hashCredential = (secret: string) => createHash('sha256').update(secret).digest();

export function newCredential(): LocalCredential {
  const secret = randomBytes(32).toString('base64url');
  return { secret, hash: hashCredential(secret) };
}

const fileIn = (dataDir: string) => join(resolve(dataDir), SERVER_FILE);

/** Writes server.json (atomically, 0600 from the start); returns its remover. */
export function writeServerFile(dataDir: string, url: string, credential: LocalCredential, apiUrl: string): () => void {
  const path = fileIn(dataDir);
  const body = `${JSON.stringify({ ...currentProcess(), url, credential: credential.secret, apiUrl, since: new Date().toISOString() } satisfies ServerFile)}\n`;
  const tmp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}`;
  writeFileSync(tmp, body, { flag: 'wx', mode: 0o600 });
  renameSync(tmp, path);
  const remove = () => {
    process.off('exit', remove);
    try {
      if (readFileSync(path, 'utf8') === body) unlinkSync(path);
    } catch {
      // Already gone.
    }
  };
  // Also when the process exits without its shutdown (process.exit on an error); after a kill
  // the file stays, and its dead pid marks it stale.
  process.on('exit', remove);
  return remove;
}

/** The running server for this data directory, or null (none, or its file is stale). */
export function readServerFile(dataDir: string): ServerFile | null {
  let file: Partial<ServerFile> | null;
  try {
    file = JSON.parse(readFileSync(fileIn(dataDir), 'utf8')) as Partial<ServerFile> | null;
  } catch {
    return null;
  }
  if (typeof file?.pid !== 'number' || typeof file.url !== 'string' || typeof file.credential !== 'string') return null;
  // A server on another host (a shared directory) is not on this host's loopback.
  const found = file as ServerFile;
  return found.hostname === hostname() && isRunning(found) ? found : null;
}

/** For the holder of the data directory's lock only: no server can be running then. */
export function removeServerFile(dataDir: string): void {
  try {
    unlinkSync(fileIn(dataDir));
  } catch {
    // None.
  }
}
