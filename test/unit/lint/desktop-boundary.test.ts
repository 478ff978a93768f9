/**
 * The desktop boundaries are ESLint rules (eslint.config.mjs, docs/DESKTOP.md §Boundaries):
 * these tests run the repository's real config over small texts placed inside src/main and
 * src/renderer, and assert that each rule fires on a deliberate violation and stays quiet on
 * what is allowed.
 */
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The boundaries are syntactic, so type information is not needed: skipping the project
// service keeps each lint to milliseconds instead of building a TypeScript program.
const eslint = new ESLint({
  overrideConfig: { languageOptions: { parserOptions: { projectService: false, project: null } } },
  ruleFilter: ({ ruleId }) =>
    ruleId === 'no-restricted-imports' || ruleId === '@typescript-eslint/no-restricted-imports',
});

async function restrictedImports(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((m) => m.ruleId ?? `fatal: ${m.message}`);
}

const use = (line: string): string => `${line}\nexport const y = [x];\n`;

describe('main process reaches the server through one seam (src/main/**)', () => {
  const MAIN_FILE = 'src/main/boundary-probe.ts';

  it('refuses an import of the server from any other file of src/main', async () => {
    const code = use(`import { startServer as x } from '#server/compose/start-server.js';`);
    expect(await restrictedImports(MAIN_FILE, code)).toEqual(['no-restricted-imports']);
  });

  it('refuses a type-only import of the server too', async () => {
    const code = `import type { RunningServer } from '#server/compose/start-server.js';\nexport type R = RunningServer;\n`;
    expect(await restrictedImports(MAIN_FILE, code)).toEqual(['no-restricted-imports']);
  });

  it('refuses the server from a nested folder of src/main', async () => {
    const code = use(`import { buildApp as x } from '#server/compose/app.js';`);
    expect(await restrictedImports('src/main/deep/probe.ts', code)).toEqual([
      'no-restricted-imports',
    ]);
  });

  it('refuses the server and Electron in the app layer outside its seam', async () => {
    for (const path of ['#server/compose/start-server.js', 'electron']) {
      const code = use(`import { y as x } from '${path}';`);
      expect(await restrictedImports('src/app/probe.ts', code), path).toEqual([
        'no-restricted-imports',
      ]);
    }
  });

  it('allows the seam, src/app/registry/demo-server.ts', async () => {
    const code = use(`import { startServer as x } from '#server/compose/start-server.js';`);
    expect(await restrictedImports('src/app/registry/demo-server.ts', code)).toEqual([]);
  });

  it('allows the core, the Node adapters, the contract and Electron', async () => {
    const code = [
      `import { UpdateError } from '../core/errors.js';`,
      `import { createNodeUpdater } from '../node/create-updater.js';`,
      `import { IPC_CHANNELS } from '../preload/ipc-contract.js';`,
      `import { app } from 'electron';`,
      `export const y = [UpdateError, createNodeUpdater, IPC_CHANNELS, app];`,
      '',
    ].join('\n');
    expect(await restrictedImports(MAIN_FILE, code)).toEqual([]);
  });
});

describe('the web window runs without Electron (src/web/**, the web bridge)', () => {
  it('refuses Electron in the web window’s server', async () => {
    const code = use(`import { app as x } from 'electron';`);
    expect(await restrictedImports('src/web/probe.ts', code)).toEqual(['no-restricted-imports']);
  });

  it('refuses the Electron composition root and the server from src/web', async () => {
    for (const path of ['../main/index.js', '../main/tray-app.js', '#server/compose/app.js']) {
      const code = use(`import { y as x } from '${path}';`);
      expect(await restrictedImports('src/web/probe.ts', code), path).toEqual([
        'no-restricted-imports',
      ]);
    }
  });

  it('allows the Electron-free app modules and Node in src/web', async () => {
    const code = [
      `import { createServer } from 'node:http';`,
      `import { openUpdater } from '#app/open-updater.js';`,
      `import { startDemoServer } from '#app/registry/demo-server.js';`,
      `export const y = [createServer, openUpdater, startDemoServer];`,
      '',
    ].join('\n');
    expect(await restrictedImports('src/web/probe.ts', code)).toEqual([]);
  });

  it('refuses Electron and Node in the web bridge (page code)', async () => {
    for (const path of ['electron', 'node:http', '../main/bridge-handlers.js']) {
      const code = use(`import { y as x } from '${path}';`);
      expect(await restrictedImports('src/preload/http-transport.ts', code), path).toEqual([
        'no-restricted-imports',
      ]);
    }
  });
});

describe('renderer imports only types from the preload (src/renderer/**)', () => {
  const RENDERER_FILE = 'src/renderer/boundary-probe.ts';
  const RULE = '@typescript-eslint/no-restricted-imports';

  it('refuses a value import from the preload contract', async () => {
    const code = use(`import { API_GLOBAL as x } from '../preload/ipc-contract.js';`);
    expect(await restrictedImports(RENDERER_FILE, code)).toEqual([RULE]);
  });

  it('refuses a value import of the preload itself', async () => {
    const code = `import '../preload/index.js';\nexport const y = 1;\n`;
    expect(await restrictedImports(RENDERER_FILE, code)).toEqual([RULE]);
  });

  const refused: [string, string][] = [
    ['electron', 'electron'],
    ['a Node built-in', 'node:fs'],
    ['a bare Node module', 'child_process'],
    ['the main process', '../main/app-controller.js'],
    ['the updater core', '../core/errors.js'],
    ['the updater core by import name', '#core/errors.js'],
    ['the app layer by import name', '#app/app-controller.js'],
    ['a value import of the preload by import name', '#preload/ipc-contract.js'],
    ['the Node adapters', '../node/create-updater.js'],
    ['the server', '#server/compose/start-server.js'],
  ];
  for (const [what, path] of refused) {
    it(`refuses ${what}`, async () => {
      const code = use(`import { z as x } from '${path}';`);
      expect(await restrictedImports(RENDERER_FILE, code)).toEqual([RULE]);
    });
  }

  it('allows type imports from the preload, the protocol and its own modules', async () => {
    const code = [
      `import type { Api } from '../preload/index.js';`,
      `import type { AppStatus } from '../preload/ipc-contract.js';`,
      `import type { ActiveMachine } from '../protocol/activity.js';`,
      `import { setText } from './dom-text.js';`,
      `export type T = [Api, AppStatus, ActiveMachine];`,
      `export const y = setText;`,
      '',
    ].join('\n');
    expect(await restrictedImports(RENDERER_FILE, code)).toEqual([]);
  });
});
