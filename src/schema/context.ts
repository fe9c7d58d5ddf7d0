// What every resolver sees. Resolvers reach the database only through `db`, the database of
// the credential's mode (docs/sandbox.md), so a sandbox request cannot touch live rows.
import type { Credential } from '../auth/credentials.js';
import type { Config } from '../config.js';
import type { Db, Databases } from '../db/databases.js';
import type { Services } from '../services.js';

export interface Context {
  credential: Credential | null;
  /** The database of the credential's mode; the live one when there is no credential. */
  db: Db;
  dbs: Databases;
  services: Services;
  config: Config;
  requestId: string;
  /**
   * Where a reconnecting `events` subscription resumes: the position it last received, which
   * an SSE client sends back as Last-Event-ID (docs/graphql.md, Live events). Null otherwise.
   */
  lastEventId: string | null;
}

export function createContext(opts: {
  credential: Credential | null;
  services: Services;
  requestId: string;
  lastEventId?: string | null;
}): Context {
  const { credential, services } = opts;
  return {
    credential,
    db: services.dbs.forMode(credential?.mode ?? 'live'),
    dbs: services.dbs,
    services,
    config: services.config,
    requestId: opts.requestId,
    lastEventId: opts.lastEventId ?? null,
  };
}
