/**
 * The window has an icon in a browser tab (docs/DESKTOP.md §Web window): the page links
 * favicon.png, the app build copies the 32 px app icon there, and the page's scheme serves it
 * as an image (no 404 for it in the log).
 */
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { APP_ENTRY_URL, createAppProtocolHandler } from '#app/app-protocol.js';

const root = resolve(import.meta.dirname, '../../..');

describe('the favicon', () => {
  it('is linked from the page and copied by the app build', async () => {
    const page = await readFile(join(root, 'src/renderer/index.html'), 'utf8');
    expect(page).toContain('<link rel="icon" type="image/png" href="favicon.png" />');
    const build = await readFile(join(root, 'scripts/build-app.mjs'), 'utf8');
    expect(build).toMatch(/resources\/icons\/32x32\.png'\), join\(rendererDir, 'favicon\.png'\)/);
  });

  it('is served as image/png', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'favicon-'));
    try {
      await copyFile(join(root, 'resources/icons/32x32.png'), join(dir, 'favicon.png'));
      const handle = createAppProtocolHandler({ rootDir: dir });
      const res = await handle(new Request(new URL('favicon.png', APP_ENTRY_URL)));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/png');
      const bytes = new Uint8Array(await res.arrayBuffer());
      expect([...bytes.subarray(1, 4)]).toEqual([0x50, 0x4e, 0x47]); // "PNG"
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
