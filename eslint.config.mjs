// Type-checked ESLint for the whole repository. `npm run lint` runs it with --max-warnings 0.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import house from './eslint-rules/doors.mjs';

// ---- Desktop boundaries (docs/DESKTOP.md §Boundaries) ---------------------------------------
// src/main reaches the companion server through one seam, src/app/registry/demo-server.ts (the embedded
// demo registry); every file of src/main is refused any import of server/. A '#' starts a
// comment in these gitignore-style patterns, so the import names are written '\\#server/**'.
const desktopMainBoundary = {
  'no-restricted-imports': [
    'error',
    {
      patterns: [
        {
          group: ['**/server/**', '\\#server/**'],
          message:
            'src/main reaches the companion server only through src/app/registry/demo-server.ts (docs/DESKTOP.md §Boundaries).',
        },
      ],
    },
  ],
};
// The app layer (src/app) runs in the tray app, the web window and the CLI alike: no Electron,
// and the companion server only through its one seam, src/app/registry/demo-server.ts.
const appBoundary = {
  'no-restricted-imports': [
    'error',
    {
      patterns: [
        {
          group: ['**/server/**', '\\#server/**'],
          message:
            'src/app reaches the companion server only through src/app/registry/demo-server.ts (docs/DESKTOP.md §Boundaries).',
        },
        {
          group: ['electron', 'electron/*'],
          message:
            'src/app runs without Electron: inject what it needs (docs/ARCHITECTURE.md §Layout).',
        },
      ],
    },
  ],
};
// The renderer is page code: it may import types from the preload (its bridge contract) and
// nothing else of it, and nothing of Electron, Node or the other processes at all.
const rendererBoundary = {
  '@typescript-eslint/no-restricted-imports': [
    'error',
    {
      patterns: [
        {
          group: ['**/preload/**', '\\#preload/**'],
          allowTypeImports: true,
          message:
            'The renderer imports only types from the preload: the bridge arrives as window.updater (docs/DESKTOP.md §Boundaries).',
        },
        {
          group: ['electron', 'electron/*', 'node:*', 'fs', 'fs/*', 'path', 'child_process'],
          message: 'The renderer is a sandboxed page: no Electron, no Node.',
        },
        {
          group: [
            '**/main/**',
            '**/core/**',
            '**/node/**',
            '**/cli/**',
            '**/server/**',
            '**/app/**',
            '\\#main/**',
            '\\#core/**',
            '\\#node/**',
            '\\#cli/**',
            '\\#server/**',
            '\\#app/**',
            '\\#web/**',
          ],
          message:
            'The renderer talks to the app only through the bridge (docs/DESKTOP.md §Boundaries).',
        },
      ],
    },
  ],
};
// The web window runs without Electron: its server (src/web) and its browser-side bridge
// (src/preload/web.ts, http-transport.ts) never import it; the browser side imports no Node.
const webServerBoundary = {
  'no-restricted-imports': [
    'error',
    {
      patterns: [
        {
          group: ['electron', 'electron/*', '**/main/**', '\\#main/**'],
          message:
            'The web window runs without Electron (docs/DESKTOP.md §Web window); use the Electron-free modules.',
        },
        {
          group: ['**/server/**', '\\#server/**'],
          message:
            'The web window reaches the demo registry through src/app/registry/demo-server.ts.',
        },
      ],
    },
  ],
};
const webBridgeBoundary = {
  'no-restricted-imports': [
    'error',
    {
      patterns: [
        {
          group: [
            'electron',
            'electron/*',
            'node:*',
            'fs',
            'path',
            'child_process',
            '../main/**',
            '\\#main/**',
            '\\#app/**',
            '\\#core/**',
            '\\#node/**',
          ],
          message:
            'The web bridge is page code (docs/DESKTOP.md §Web window): the contract and the browser only.',
        },
      ],
    },
  ],
};
// ---- end of the desktop boundaries ----------------------------------------------------------

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
        {
          group: [
            '\\#node/**',
            '\\#app/**',
            '\\#main/**',
            '\\#cli/**',
            '\\#web/**',
            '\\#server/**',
            '\\#test/**',
          ],
          message:
            'The core and the protocol import nothing of the shells (docs/ARCHITECTURE.md §Layout).',
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
        {
          // By import name: every name but #protocol (the public entry), #shared/<file> and the
          // server's own #server/*.
          regex: String.raw`^#(?!protocol$|shared/[^/]+\.js$|server/)`,
          message:
            'server/src imports only #protocol and #shared/* of the rest (docs/ARCHITECTURE.md §Server).',
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
    ignores: [
      // A deliberate violation that only test/unit/lint/gates.test.ts lints.
      'test/fixtures/lint/',
      'node_modules/',
      'dist/',
      'packages/*/dist/',
      '.cache/',
      'out/',
      'test-results/',
      'playwright-report/',
      'coverage/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: {
          allowDefaultProject: [
            '*.mjs',
            'scripts/*.mjs',
            '.ci/*.mjs',
            'test/integration/server-package/*.mjs',
          ],
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true, requireDefaultForNonUnion: false },
      ],
      'no-console': 'off',
    },
  },
  { files: ['src/core/**/*.ts', 'src/protocol/**/*.ts'], rules: pureBans },
  {
    files: ['src/**/*.ts', 'server/**/*.ts', 'packages/*/src/**/*.ts'],
    plugins: { house },
    rules: { 'house/doors': 'error' },
  },
  // Size caps (docs/ARCHITECTURE.md §Habits): past about 300 lines a file hides a second concept,
  // past 60 a function hides its steps. Product code only: a test file's describe blocks and a
  // bench script are read top to bottom as one story.
  {
    files: ['src/**/*.ts', 'server/**/*.ts', 'packages/*/src/**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 300, skipBlankLines: true, skipComments: true }],
      'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true }],
    },
  },
  { files: ['server/src/**/*.ts'], rules: serverBoundary },
  { files: ['src/shared/**/*.ts'], rules: sharedBoundary },
  {
    files: ['**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      // Keep disableTypeChecked's parserOptions (no project service): plain JavaScript is not
      // in the TypeScript program, wherever it lives.
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        fetch: 'readonly',
        Buffer: 'readonly',
        TextEncoder: 'readonly',
        URLSearchParams: 'readonly',
      },
    },
  },
  { files: ['src/main/**/*.ts'], rules: desktopMainBoundary },
  {
    files: ['src/app/**/*.ts'],
    ignores: ['src/app/registry/demo-server.ts'],
    rules: appBoundary,
  },
  { files: ['src/renderer/**/*.ts'], rules: rendererBoundary },
  { files: ['src/web/**/*.ts'], rules: webServerBoundary },
  { files: ['src/preload/web.ts', 'src/preload/http-transport.ts'], rules: webBridgeBoundary },
);
