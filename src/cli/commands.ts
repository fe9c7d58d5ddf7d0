// The CLI's commands, each calling the same use case as the API and the admin area.
import { AppError } from '../errors.js';
import type { Services } from '../services.js';
import { createAccount, findAccountByEmail } from '../schema/accounts/index.js';
import { createApiKey, createOAuthClient, revokeApiKey } from '../schema/credentials/index.js';
import { createCompany, restoreSampleCompanies } from '../schema/companies/index.js';
import { wipeSandbox } from '../schema/sandbox/index.js';
import { startWorkers } from '../workers/runtime.js';
import { CATALOG, type CommandSpec } from './catalog.js';
import { companyOption, optional, required, type Implementation, type Values } from './command-kit.js';
import { COMPANY_COMMANDS } from './company-commands.js';

/** A command as the catalog describes it (catalog.ts), with the code that runs it. */
export type Command = CommandSpec & Implementation;
export type { Values };

const accountByEmail = (services: Services, email: string) => findAccountByEmail(services.dbs, email);

const IMPLEMENTATIONS: Record<string, Implementation> = {
  ...COMPANY_COMMANDS,
  migrate: {
    async run(services) {
      const { live, test } = await services.dbs.migrate();
      return { applied: [...new Set([...live, ...test])] };
    },
  },
  'account create': {
    async run(services, v) {
      const { account, testCompanies } = await createAccount(
        services.dbs,
        { email: required(v, 'email'), password: required(v, 'password') },
        { week: services },
      );
      return { accountId: account.id, testCompanies: testCompanies.map((c) => ({ _id: c.id, name: c.name })) };
    },
  },
  'company create': {
    async run(services, v) {
      const account = await accountByEmail(services, required(v, 'account'));
      const mode = required(v, 'mode');
      if (mode !== 'live' && mode !== 'test') throw new AppError('VALIDATION_ERROR', '--mode must be live or test');
      const company = await createCompany(services.dbs, {
        accountId: account.id,
        mode,
        name: required(v, 'name'),
        timezone: optional(v, 'timezone'),
        currency: optional(v, 'currency'),
        email: optional(v, 'email'),
        phone: optional(v, 'phone'),
        address: optional(v, 'address'),
      });
      return { _id: company.id, name: company.name, mode: company.mode };
    },
  },
  'key create': {
    async run(services, v) {
      const { company, db } = await companyOption(services, v);
      const { apiKey, key } = await createApiKey(db, {
        companyId: company.id,
        name: required(v, 'name'),
      });
      return { _id: apiKey.id, key, mode: apiKey.mode };
    },
  },
  'key revoke': {
    async run(services, v) {
      const key = await revokeApiKey(services.dbs, services.credentials, { keyId: required(v, 'key-id') });
      return { _id: key.id, revokedAt: key.revokedAt!.toISOString() };
    },
  },
  worker: {
    async run(services) {
      const workers = await startWorkers(services);
      // SIGTERM: stop taking jobs, finish those in flight, then exit (docs/cli.md).
      const signal = await new Promise<string>((resolve) => {
        process.once('SIGTERM', () => resolve('SIGTERM'));
        process.once('SIGINT', () => resolve('SIGINT'));
      });
      await workers.stop();
      return { stopped: signal };
    },
  },
  'oauth-client create': {
    async run(services, v) {
      const account = await accountByEmail(services, required(v, 'account'));
      const uris = v['redirect-uri'];
      const scopes = optional(v, 'scopes');
      const { client, clientSecret } = await createOAuthClient(services.dbs, {
        accountId: account.id,
        name: required(v, 'name'),
        redirectUris: Array.isArray(uris) ? uris : [],
        scopes: scopes === undefined ? undefined : scopes.split(' ').filter(Boolean),
        type: v.public === true ? 'public' : 'confidential',
      });
      return clientSecret ? { clientId: client.clientId, clientSecret } : { clientId: client.clientId };
    },
  },
  'sandbox wipe': {
    async run(services, v) {
      const account = await accountByEmail(services, required(v, 'account'));
      const { deletedCompanies } = await wipeSandbox(services.dbs, services.credentials, { accountId: account.id });
      return { deletedCompanies };
    },
  },
  'sandbox restore': {
    async run(services, v) {
      const account = await accountByEmail(services, required(v, 'account'));
      const { testCompanies } = await restoreSampleCompanies(services.dbs, services.credentials, {
        accountId: account.id,
        reset: v.reset === true,
        week: services,
      });
      return { testCompanies: testCompanies.map((c) => ({ _id: c.id, name: c.name })) };
    },
  },
};

// The API client commands (`listen`, `trigger`) run from api-run.ts, never here or in the server.
export const COMMANDS: Command[] = CATALOG.filter((spec) => !spec.apiClient).map((spec) => {
  const implementation = IMPLEMENTATIONS[spec.name];
  if (!implementation) throw new Error(`svc ${spec.name}: the catalog names a command that has no implementation`);
  return { ...spec, ...implementation };
});

export function commandNamed(name: string): Command | undefined {
  return COMMANDS.find((c) => c.name === name);
}

export { describeFailure, exitStatus, failureLine, type CommandFailure } from './failure.js';
