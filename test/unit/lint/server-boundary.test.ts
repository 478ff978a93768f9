/**
 * The server's import boundary is an ESLint rule (eslint.config.mjs, docs/ARCHITECTURE.md
 * §Server): these tests run the repository's real config over small texts placed inside
 * server/src and src/shared, and assert that the rule fires on each way out and stays quiet on
 * the two doors.
 */
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The boundary is a syntactic rule, so type information is not needed: skipping the project
// service keeps each lint to milliseconds instead of building a TypeScript program.
const eslint = new ESLint({
  overrideConfig: { languageOptions: { parserOptions: { projectService: false, project: null } } },
  ruleFilter: ({ ruleId }) => ruleId === 'no-restricted-imports',
});

async function restrictedImports(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((m) => m.ruleId ?? `fatal: ${m.message}`);
}

const SERVER_FILE = 'server/src/routes/boundary-probe.ts';

describe('server boundary (server/src/**)', () => {
  const refused: [string, string][] = [
    ['a protocol module behind the public entry', '#protocol/envelope.js'],
    ['the updater core', '#core/errors.js'],
    ['the Node adapters', '#node/store/file-store.js'],
    ['the Electron main process', '#main/index.js'],
    ['a test helper', '#test/server-harness.js'],
    ['a nested path under src/shared', '#shared/deep/x.js'],
  ];
  for (const [what, path] of refused) {
    it(`refuses an import of ${what}`, async () => {
      const code = `import { x } from '${path}';\nexport const y = x;\n`;
      expect(await restrictedImports(SERVER_FILE, code)).toEqual(['no-restricted-imports']);
    });
  }

  it('refuses a type-only import across the boundary too', async () => {
    const code = `import type { Limits } from '#core/limits.js';\nexport type L = Limits;\n`;
    expect(await restrictedImports(SERVER_FILE, code)).toEqual(['no-restricted-imports']);
  });

  it('refuses Electron', async () => {
    const code = `import { app } from 'electron';\nexport const a = app;\n`;
    expect(await restrictedImports(SERVER_FILE, code)).toEqual(['no-restricted-imports']);
  });

  it('allows the public protocol entry, src/shared, server-internal paths and packages', async () => {
    const code = [
      `import { errorBody } from '#protocol';`,
      `import { writeJsonAtomic } from '#shared/atomic-file.js';`,
      `import { HttpError } from '../http/http-error.js';`,
      `import Fastify from 'fastify';`,
      `export const all = [errorBody, writeJsonAtomic, HttpError, Fastify];`,
      '',
    ].join('\n');
    expect(await restrictedImports(SERVER_FILE, code)).toEqual([]);
  });
});

describe('shared boundary (src/shared/**)', () => {
  it('refuses an import of the Node adapters', async () => {
    const code = `import { x } from '../node/file-store.js';\nexport const y = x;\n`;
    expect(await restrictedImports('src/shared/probe.ts', code)).toEqual(['no-restricted-imports']);
  });

  it('allows Node built-ins', async () => {
    const code = `import { rename } from 'node:fs/promises';\nexport const r = rename;\n`;
    expect(await restrictedImports('src/shared/probe.ts', code)).toEqual([]);
  });
});
