// ESLint: typescript-eslint's type-aware rules, which catch real bugs (a promise nobody awaits,
// a promise where a callback must return void, `any` leaking into typed code). Formatting is
// Prettier's (npm run format); this file holds no style rules. A rule is turned off only with
// its reason written beside it.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// Process state (ARCHITECTURE.md): a value at module level lives as long as the process and
// is shared by every request and company it serves. A mutable one (a `let`, a Map, a Set, an
// empty array or object to fill) is allowed only where ARCHITECTURE.md lists it, with its
// key, bound and invalidation: the line before it says so
// (`eslint-disable-next-line no-restricted-syntax -- process state: <its name there>`, which
// test/docs/process-state.test.ts checks against the list). A constant collection is frozen
// (deepFreeze, src/frozen.ts), so that a caller who adds to it throws at once.
const processState = [
  'Program > VariableDeclaration',
  'Program > ExportNamedDeclaration > VariableDeclaration',
].flatMap((declaration) => [
  {
    selector: `${declaration}[kind='let']`,
    message: 'A module-level let is process state: list it in ARCHITECTURE.md (Process state) or avoid it.',
  },
  {
    selector: `${declaration} > VariableDeclarator > NewExpression[callee.name=/^(Map|Set|WeakMap|WeakSet|Array)$/]`,
    message:
      'A module-level collection is process state: freeze a constant one (deepFreeze, src/frozen.ts), or list a cache in ARCHITECTURE.md (Process state).',
  },
  {
    selector: `${declaration} > VariableDeclarator > :matches(ArrayExpression[elements.length=0], ObjectExpression[properties.length=0])`,
    message:
      'A module-level empty array or object is shared by every caller: freeze it (Object.freeze), or list it in ARCHITECTURE.md (Process state).',
  },
]);

// The admin area reads and writes through the domain's use cases only (ARCHITECTURE.md,
// admin-reads-through-the-domain): no model call on a database client (`s.db.customer…`,
// `dbs.live.prisma…`) and no raw SQL (`$queryRaw`…). It passes a database to a use case; it never
// reaches into one.
const adminThroughTheDomain = [
  {
    selector: "MemberExpression[object.type='MemberExpression'][object.property.name=/^(db|tx|prisma)$/]",
    message: 'The admin area does not query the database: call (or add) a use case in src/schema.',
  },
  {
    selector: 'MemberExpression[object.name=/^(db|tx|prisma)$/], MemberExpression[property.name=/^[$]/]',
    message: 'The admin area does not query the database: call (or add) a use case in src/schema.',
  },
];

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'src/generated/',
      'sdk/dist/',
      'sdk/src/generated/',
      '.data/',
      'coverage/',
      'test-results/',
      'bench/results/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: globals.node,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Fastify plugins and hooks, Pothos resolvers and vitest callbacks are declared async by
      // their APIs' contracts whether or not the body awaits; an async function without an
      // await is harmless. The promise bugs are caught by no-floating-promises and
      // no-misused-promises, which stay on.
      '@typescript-eslint/require-await': 'off',
      // `_`-prefixed names are deliberately unused (a callback's leading parameters).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Process state: see processState above.
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    ignores: ['src/generated/**'],
    rules: { 'no-restricted-syntax': ['error', ...processState] },
  },
  {
    files: ['src/admin/**/*.ts', 'src/admin/**/*.tsx'],
    rules: { 'no-restricted-syntax': ['error', ...processState, ...adminThroughTheDomain] },
  },
  {
    // Tests and benchmarks read HTTP and GraphQL answers as parsed JSON (`res.json()` is `any`)
    // and compare them whole with expect(); typing each answer would restate the response
    // schemas the server already validates. The `any` rules stay on for src and scripts.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // Scripts served to the browser as files (the admin area's, GraphiQL's start script).
    files: ['src/admin/assets/**/*.js', 'src/http/assets/**/*.js'],
    languageOptions: { globals: { ...globals.browser, YogaGraphiQL: 'readonly' } },
  },
  {
    // Plain JavaScript (bin, scripts, configs, the browser scripts) has no types to check.
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },
);
