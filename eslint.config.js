// ESLint (flat config): typescript-eslint's recommended rules everywhere, no import cycles, the hooks
// rules on the dashboard, and the floor plan: the features' tiers and faces (sightline/tiers), with
// lib/, db/ and auth/ never importing from features/.
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';
import { noCycle } from './scripts/eslint-no-cycle.js';
import { tiers } from './scripts/eslint-tiers.js';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'packages/client/dist/**', 'web/dist/**', 'bench/results/**', 'test-artifacts/**', 'coverage/**', 'data/**'] },
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx}'],
    plugins: { sightline: { rules: { 'no-cycle': noCycle, tiers } } },
    rules: { 'sightline/no-cycle': 'error', 'sightline/tiers': 'error' },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // Migrations are written against Kysely<any> (frozen files, independent of today's table types), and
    // the bulk insert builds statements for any table; tests read JSON bodies of any shape.
    files: ['src/db/migrations/**/*.ts', 'src/db/bulk.ts', 'test/**/*.ts', 'src/**/*.test.ts', 'src/**/*.test-support.ts', 'packages/client/test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['src/lib/**/*.ts', 'src/db/**/*.ts', 'src/auth/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/features/**'], message: 'lib/, db/ and auth/ never import from features/: inject what they need (see ARCHITECTURE.md).' }] },
      ],
    },
  },
  {
    // Size held by lint: a source file past 300 lines is split by concern. Suites may be longer (split
    // by topic instead); frozen migrations are never edited. No other file is an exception.
    files: ['src/**/*.ts', 'web/src/**/*.{ts,tsx}', 'packages/client/src/**/*.ts'],
    ignores: ['**/*.test.ts', '**/*.test.tsx', '**/*.test-support.ts', 'src/db/migrations/**'],
    rules: { 'max-lines': ['error', { max: 300 }] },
  },
  {
    files: ['web/src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'error' },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        fetch: 'readonly',
        AbortSignal: 'readonly',
        performance: 'readonly',
      },
    },
  },
);
