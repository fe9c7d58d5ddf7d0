// ESLint: typescript-eslint's type-aware rules, which catch real bugs (a promise nobody awaits,
// a promise where a callback must return void, `any` leaking into typed code). Formatting is
// Prettier's (npm run format); this file holds no style rules. A rule is turned off only with
// its reason written beside it.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

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
