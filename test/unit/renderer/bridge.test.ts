import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { API_GLOBAL } from '#preload/ipc-contract.js';

const RENDERER = resolve(import.meta.dirname, '../../../src/renderer');

// What the renderer may import is an ESLint rule (test/unit/lint/desktop-boundary.test.ts);
// the global's name is a value it cannot import, so it is checked here.
describe('renderer bridge', () => {
  it('reads the bridge under the name the preload exposes', async () => {
    const bridge = await readFile(join(RENDERER, 'bridge.ts'), 'utf8');
    expect(bridge).toContain(`.${API_GLOBAL};`);
  });
});
