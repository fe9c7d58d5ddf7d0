// The layers of ARCHITECTURE.md ("Layers and invariants"), as import rules. Each rule's name
// is the invariant's name there; change both together. `npm run lint:deps` runs these and CI
// fails on any violation. Type-only imports count: a layer that needs another's types depends
// on it as much as one that calls it.

// Bottom to top. A layer may import its own layer and the ones below it, never one above.
const PRIMITIVES = '^src/(crypto|webhooks|generated)/|^src/(config|errors|ids|logger|bus|package-files|frozen)[.]ts$';
// The credential model: what an API key, a token, a scope and a redirect URI are, and the
// cached resolution of a bearer credential. The rest of src/auth is the OAuth transport.
const CREDENTIAL_MODEL = '^src/auth/(scopes|tokens|credentials)[.]ts$|^src/auth/oauth/redirect-uri[.]ts$';
const PLATFORM = `^src/(db|payments)/|^src/services[.]ts$|${CREDENTIAL_MODEL}`;
const DOMAIN = '^src/schema/';
const TRANSPORT_FOLDERS = 'rest|admin|cli|workers|http';
// The assembly: the HTTP app builder, the process, the embedded start's demo seed.
const ASSEMBLY = '^src/(app|server|demo)[.]ts$';

// The subjects of the domain (the folders of src/schema), bottom to top: a subject imports only
// subjects of a lower level, so no two subjects need each other, however indirectly
// (ARCHITECTURE.md, "subjects-do-not-loop"). A subject that needs one of its own level or above
// moves a level up, or the shared part moves down (into core/, or the files at the root of
// src/schema, which import no subject). test/docs/architecture.test.ts fails while a folder of
// src/schema is missing here.
const SUBJECT_LEVELS = [
  ['credentials', 'emails', 'events', 'locations', 'maintenance', 'recurrence', 'request-logs'],
  ['core', 'customers', 'staff', 'webhooks'],
  ['calendars', 'notifications', 'reports', 'resources', 'team'],
  ['availability', 'services'],
  ['bookings'],
  ['booking-series', 'class-schedules', 'closures', 'payments', 'visits'],
  ['classes', 'customer-exports', 'test-clocks'],
  ['sandbox'],
  ['companies'],
  ['accounts'],
];
const subjectsOf = (levels) => `^src/schema/(${levels.flat().join('|')})/`;

module.exports = {
  forbidden: [
    {
      name: 'primitives-import-only-primitives',
      comment:
        'Primitives (crypto, webhooks, config, errors, ids, logger, bus, frozen, the generated client) import nothing of ours but other primitives.',
      severity: 'error',
      from: { path: PRIMITIVES },
      to: { path: '^src/', pathNot: PRIMITIVES },
    },
    {
      name: 'platform-imports-no-domain-or-transport',
      comment: 'The platform (db, payments, the credential model, services.ts) imports only itself and the primitives.',
      severity: 'error',
      from: { path: PLATFORM },
      to: { path: '^src/', pathNot: `${PLATFORM}|${PRIMITIVES}` },
    },
    {
      name: 'domain-imports-no-transport',
      comment:
        'The domain (src/schema) never imports a transport, the workers, the auth transport or the entry points.',
      severity: 'error',
      from: { path: DOMAIN },
      to: { path: '^src/', pathNot: `${DOMAIN}|${PLATFORM}|${PRIMITIVES}` },
    },
    {
      name: 'subjects-entered-through-their-index',
      comment:
        'Outside the domain, a subject of src/schema (bookings, payments, ...) is imported through its index.ts only; its GraphQL type file is registered by src/schema/index.ts.',
      severity: 'error',
      from: { path: '^src/', pathNot: DOMAIN },
      to: { path: '^src/schema/[^/]+/', pathNot: '^src/schema/[^/]+/index[.]ts$' },
    },
    {
      name: 'subjects-enter-one-another-through-their-index',
      comment:
        'Inside the domain too, a subject imports another subject through its index.ts only: what a subject offers is one file to read.',
      severity: 'error',
      from: { path: '^src/schema/([^/]+)/' },
      to: { path: '^src/schema/[^/]+/', pathNot: '^src/schema/$1/|^src/schema/[^/]+/index[.]ts$' },
    },
    {
      name: 'domain-root-imports-no-subject',
      comment:
        'The files at the root of src/schema (builder, context, validation, ...) are what every subject shares: they import no subject, so none loops through them. Only src/schema/index.ts, which assembles the schema, imports the subjects.',
      severity: 'error',
      from: { path: '^src/schema/[^/]+$', pathNot: '^src/schema/index[.]ts$' },
      to: { path: '^src/schema/[^/]+/' },
    },
    ...SUBJECT_LEVELS.map((level, i) => ({
      name: 'subjects-do-not-loop',
      comment: `A subject of level ${i} (${level.join(', ')}) imports only subjects of a lower level (SUBJECT_LEVELS above).`,
      severity: 'error',
      from: { path: subjectsOf([level]) },
      to: {
        path: '^src/schema/[^/]+/',
        pathNot: i === 0 ? '^src/schema/$1/' : `^src/schema/$1/|${subjectsOf(SUBJECT_LEVELS.slice(0, i))}`,
      },
    })),
    {
      name: 'subjects-do-not-loop',
      comment:
        'A folder of src/schema that SUBJECT_LEVELS does not list imports no subject until it is given its level.',
      severity: 'error',
      from: { path: '^src/schema/([^/]+)/', pathNot: subjectsOf(SUBJECT_LEVELS) },
      to: { path: '^src/schema/[^/]+/', pathNot: '^src/schema/$1/' },
    },
    {
      name: 'transports-do-not-import-each-other',
      comment:
        'rest, admin, cli, workers and http each call the domain, never one another sideways (who may start the workers: next rules).',
      severity: 'error',
      from: { path: `^src/(${TRANSPORT_FOLDERS})/` },
      to: { path: '^src/(rest|admin|cli|http)/', pathNot: '^src/$1/' },
    },
    {
      name: 'workers-started-only-by-entry-points',
      comment: 'Only src/server.ts and the CLI start the workers, and only through src/workers/runtime.ts.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/workers/|^src/server[.]ts$|^src/cli/' },
      to: { path: '^src/workers/' },
    },
    {
      name: 'workers-entered-through-runtime',
      comment: 'Whoever starts the workers imports src/workers/runtime.ts, nothing deeper.',
      severity: 'error',
      from: { path: '^src/server[.]ts$|^src/cli/' },
      to: { path: '^src/workers/', pathNot: '^src/workers/runtime[.]ts$' },
    },
    {
      name: 'auth-transport-imports-no-other-transport',
      comment:
        'The OAuth server and the shared sessions, pages and hooks import no other transport and nothing of the assembly.',
      severity: 'error',
      from: { path: '^src/auth/' },
      to: { path: `^src/(${TRANSPORT_FOLDERS})/|${ASSEMBLY}` },
    },
    {
      name: 'oauth-endpoints-are-not-shared',
      comment:
        "Other transports share auth's sessions, pages, bearer hook and rate limits, not the OAuth endpoints in src/auth/oauth.",
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/auth/|^src/app[.]ts$' },
      to: { path: '^src/auth/oauth/', pathNot: CREDENTIAL_MODEL },
    },
    {
      name: 'auth-http-is-for-http-transports',
      comment: 'The workers and the CLI serve no HTTP requests: of src/auth they use only the credential model.',
      severity: 'error',
      from: { path: '^src/(workers|cli)/' },
      to: { path: '^src/auth/', pathNot: CREDENTIAL_MODEL },
    },
    {
      name: 'only-the-app-imports-admin',
      comment: 'The admin area is one encapsulated plugin: nothing imports it but the app builder.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/admin/|^src/app[.]ts$' },
      to: { path: '^src/admin/' },
    },
    {
      name: 'admin-reads-through-the-domain',
      comment:
        'The admin area calls use cases: it imports no runtime part of the Prisma client or of src/db (their types, the rows it shows, it may). ESLint keeps model calls and raw SQL out of it too.',
      severity: 'error',
      from: { path: '^src/admin/' },
      to: { path: '^src/generated/prisma/|^src/db/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'only-the-server-imports-the-assembly',
      comment: 'src/app.ts and src/demo.ts are assembled by src/server.ts alone; no layer reaches up to them.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/server[.]ts$' },
      to: { path: ASSEMBLY },
    },
    {
      name: 'no-circular',
      comment: 'No import cycles anywhere in src.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-orphans',
      comment: 'Every module in src is imported or imports something; a lone file is dead code.',
      severity: 'error',
      // Browser scripts (the admin area's, GraphiQL's start script) are served as files, not imported.
      from: { orphan: true, path: '^src/', pathNot: '[.]d[.]ts$|^src/generated/|^src/admin/assets/|^src/http/assets/' },
      to: {},
    },
    {
      name: 'src-imports-no-test-code',
      comment: 'Production code never imports tests, benchmarks or build scripts.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench|scripts)/' },
    },
    {
      name: 'src-imports-no-dev-dependency',
      comment: 'A production install leaves devDependencies out, so src must not need them.',
      severity: 'error',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-unresolvable',
      comment: 'Every import resolves to a file or an installed package.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // The generated Prisma client and Pothos types are leaves: imported, not cruised into.
    doNotFollow: { path: 'node_modules|^src/generated/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Packages' export maps, as Node resolves them (`nodemailer/lib/mime-funcs`).
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'],
    },
  },
};
