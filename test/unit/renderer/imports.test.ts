import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { API_GLOBAL } from '../../../src/preload/ipc-contract.js';

const RENDERER = resolve(import.meta.dirname, '../../../src/renderer');

async function sources(): Promise<{ name: string; text: string }[]> {
  const names = (await readdir(RENDERER)).filter((n) => n.endsWith('.ts'));
  return Promise.all(
    names.map(async (name) => ({ name, text: await readFile(join(RENDERER, name), 'utf8') })),
  );
}

describe('renderer boundary', () => {
  it('imports nothing but types from the preload, and never electron or node modules', async () => {
    const files = await sources();
    expect(files.length).toBeGreaterThan(3);
    for (const { name, text } of files) {
      const imports = [...text.matchAll(/^import\s+(type\s+)?[^;]*?from\s+'([^']+)'/gms)];
      for (const [, typeOnly, from] of imports) {
        if (from?.startsWith('../preload/')) expect(typeOnly, `${name}: ${from}`).toBe('type ');
        expect(from, name).not.toMatch(/^(electron|node:|fs|path|child_process)/);
      }
    }
  });

  it('reads the bridge under the name the preload exposes', async () => {
    const bridge = await readFile(join(RENDERER, 'bridge.ts'), 'utf8');
    expect(bridge).toContain(`.${API_GLOBAL};`);
  });
});
