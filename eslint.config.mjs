// Type-checked ESLint for the whole repository. `npm run lint` runs it with --max-warnings 0.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const pureBans = {
  'no-restricted-imports': [
    'error',
    {
      paths: [
        { name: 'electron', message: 'The core is Electron-free: inject a port instead.' },
        { name: 'got', message: 'The core takes a Fetcher port; got lives in src/node.' },
      ],
      patterns: [
        {
          group: [
            'node:fs',
            'node:fs/*',
            'fs',
            'fs/*',
            'node:http',
            'node:https',
            'http',
            'https',
            'node:net',
            'net',
            'node:child_process',
            'child_process',
          ],
          message: 'The core is pure: I/O lives behind ports (src/core/ports.ts).',
        },
      ],
    },
  ],
  'no-restricted-globals': [
    'error',
    { name: 'fetch', message: 'Use the injected Fetcher port.' },
    { name: 'process', message: 'Read the environment only at entry points.' },
  ],
  'no-restricted-properties': [
    'error',
    { object: 'Date', property: 'now', message: 'Use the injected Clock.' },
    { object: 'performance', property: 'now', message: 'Use the injected Clock.' },
  ],
  'no-restricted-syntax': [
    'error',
    {
      selector: "NewExpression[callee.name='Date'][arguments.length=0]",
      message: 'Use the injected Clock.',
    },
  ],
};

// ---- Server boundary (docs/ARCHITECTURE.md §Server) -------------------------------------------
// server/src reaches the rest of the repository through two doors only: src/protocol's public
// entry (wire formats both sides speak) and src/shared (what both sides truly share: the atomic
// file writer). src/shared itself imports nothing of either side.
const serverBoundary = {
  'no-restricted-imports': [
    'error',
    {
      patterns: [
        {
          // A relative path out of server/ into the repository's src/ (or test/, bench/, scripts/),
          // except the two doors.
          regex: String.raw`^(?:\.\./)+(?:src|test|bench|scripts)/(?!protocol/index\.js$|shared/[^/]+\.js$)`,
          message:
            'server/src imports only src/protocol/index.js and src/shared/* (docs/ARCHITECTURE.md §Server).',
        },
        { group: ['electron', 'electron/*'], message: 'The server never loads Electron.' },
      ],
    },
  ],
};
const sharedBoundary = {
  'no-restricted-imports': [
    'error',
    {
      patterns: [
        {
          group: ['../**', '**/server/**'],
          message:
            'src/shared is shared by both sides, so it imports neither (docs/ARCHITECTURE.md §Server).',
        },
      ],
    },
  ],
};
// ---- end of the server boundary -----------------------------------------------------------------

export default tseslint.config(
  {
    ignores: ['node_modules/', 'dist/', 'out/', 'test-results/', 'playwright-report/', 'coverage/'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['*.mjs', 'scripts/*.mjs', '.ci/*.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  { files: ['src/core/**/*.ts', 'src/protocol/**/*.ts'], rules: pureBans },
  { files: ['server/src/**/*.ts'], rules: serverBoundary },
  { files: ['src/shared/**/*.ts'], rules: sharedBoundary },
  {
    files: ['**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
      },
    },
  },
);
