/**
 * Windows delivers the app's native notifications (update applied / refused) only when the
 * running app's Application User Model ID is the one the installer's shortcut carries.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { APP_ID } from '#main/app-identity.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const require = createRequire(import.meta.url);

describe('app identity', () => {
  it("is electron-builder.yml's appId, which the NSIS shortcut carries", async () => {
    // js-yaml ships with electron-builder (no extra dependency).
    const yaml = require('js-yaml') as { load(text: string): unknown };
    const config = yaml.load(await readFile(join(ROOT, 'electron-builder.yml'), 'utf8')) as {
      appId: string;
    };
    expect(APP_ID).toBe(config.appId);
  });
});
