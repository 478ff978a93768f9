/**
 * The house's doors are an ESLint rule (eslint-rules/doors.mjs, docs/ARCHITECTURE.md §Layout):
 * these tests run the repository's real config over small texts placed in the tree and assert
 * that the rule fires on a reach into a group or into src/main, by import name and by relative
 * path, and stays quiet on the doors themselves.
 */
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The rule is syntactic: no type information, so each lint takes milliseconds.
const eslint = new ESLint({
  overrideConfig: { languageOptions: { parserOptions: { projectService: false, project: null } } },
  ruleFilter: ({ ruleId }) => ruleId === 'house/doors',
});

async function doorProblems(filePath: string, spec: string): Promise<string[]> {
  const code = `import { x } from '${spec}';\nexport const y = [x];\n`;
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((m) => m.ruleId ?? `fatal: ${m.message}`);
}

describe('groups are entered through their index.ts', () => {
  const refused: [string, string, string][] = [
    ['the CLI, by import name', 'src/cli/probe.ts', '#core/trust/verify.js'],
    ['the CLI, by relative path', 'src/cli/probe.ts', '../core/trust/verify.js'],
    ['another core group', 'src/core/schedule/probe.ts', '../trust/verify.js'],
    ['a top-level core module', 'src/core/probe.ts', './chunks/sweep.js'],
    ['the app layer, into a Node group', 'src/app/probe.ts', '#node/store/file-store.js'],
    ['the server package', 'packages/server/src/probe.ts', '#core/trust/verify.js'],
  ];
  for (const [who, file, spec] of refused) {
    it(`refuses ${who} reaching inside a group (${spec})`, async () => {
      expect(await doorProblems(file, spec)).toEqual(['house/doors']);
    });
  }

  const allowed: [string, string, string][] = [
    ['the door by import name', 'src/cli/probe.ts', '#core/trust/index.js'],
    ['the door by relative path', 'src/core/schedule/probe.ts', '../trust/index.js'],
    ['a file of its own group', 'src/core/trust/probe.ts', './verify.js'],
    ['a top-level core module', 'src/node/probe.ts', '#core/errors.js'],
    ['a package', 'src/cli/probe.ts', 'undici'],
  ];
  for (const [what, file, spec] of allowed) {
    it(`allows ${what} (${spec})`, async () => {
      expect(await doorProblems(file, spec)).toEqual([]);
    });
  }
});

describe('src/main is the Electron composition root, imported by nothing else', () => {
  it('refuses src/web importing from src/main by import name', async () => {
    expect(await doorProblems('src/web/probe.ts', '#main/tray-menu.js')).toContain('house/doors');
  });

  it('refuses the app layer importing from src/main by relative path', async () => {
    expect(await doorProblems('src/app/probe.ts', '../main/tray-menu.js')).toEqual(['house/doors']);
  });

  it('allows src/main importing its own files', async () => {
    expect(await doorProblems('src/main/probe.ts', './tray-menu.js')).toEqual([]);
  });
});
