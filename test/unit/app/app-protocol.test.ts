/**
 * The window's page is served by our own `app://` scheme (Electron security checklist §18:
 * prefer a custom protocol over file://), so every response carries the strict CSP as a
 * header, not only as the page's meta tag, and the window can reach no file but its own.
 */
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  APP_ENTRY_URL,
  APP_PRIVILEGED_SCHEME,
  CONTENT_SECURITY_POLICY,
  createAppProtocolHandler,
} from '#app/app-protocol.js';

let base: string;
let root: string;
let handle: (request: Request) => Promise<Response>;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'app-protocol-'));
  root = join(base, 'renderer');
  await mkdir(join(root, 'sub'), { recursive: true });
  await writeFile(join(root, 'index.html'), '<!doctype html><title>t</title>');
  await writeFile(join(root, 'renderer.js'), 'void 0;');
  await writeFile(join(root, 'styles.css'), 'body{}');
  await writeFile(join(root, 'renderer.js.map'), '{}');
  await writeFile(join(base, 'secret.txt'), 'outside the renderer directory');
  handle = createAppProtocolHandler({ rootDir: root });
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

const get = (url: string, method = 'GET'): Promise<Response> =>
  handle(new Request(url, { method }));

describe('app:// protocol', () => {
  it('serves the page with the strict CSP as a response header', async () => {
    const response = await get(APP_ENTRY_URL);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await response.text()).toContain('<title>t</title>');
  });

  it('serves the script and the stylesheet with their types and the CSP', async () => {
    const script = await get('app://renderer/renderer.js');
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    const style = await get('app://renderer/styles.css');
    expect(style.headers.get('content-type')).toBe('text/css; charset=utf-8');
  });

  it('the header CSP is the page meta CSP (one policy, two places)', async () => {
    const html = await readFile(
      resolve(import.meta.dirname, '../../../src/renderer/index.html'),
      'utf8',
    );
    const meta = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html)?.[1];
    expect(meta).toBe(CONTENT_SECURITY_POLICY);
    // 'self' is the web window's bridge; in Electron app:// has no Fetch API (docs/SECURITY.md §6).
    expect(CONTENT_SECURITY_POLICY).toContain("connect-src 'self'");
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe');
  });

  it('refuses a path that climbs out of the renderer directory', async () => {
    expect((await get('app://renderer/%2e%2e/secret.txt')).status).toBe(404);
    expect((await get('app://renderer/..%2fsecret.txt')).status).toBe(404);
    expect((await get('app://renderer/sub%5c..%5c..%5csecret.txt')).status).toBe(404);
  });

  it('refuses another host of the scheme', async () => {
    expect((await get('app://other/index.html')).status).toBe(404);
  });

  it('refuses a file type the page does not use (source maps included)', async () => {
    expect((await get('app://renderer/renderer.js.map')).status).toBe(404);
  });

  it('refuses a missing file and a directory', async () => {
    expect((await get('app://renderer/missing.js')).status).toBe(404);
    expect((await get('app://renderer/sub')).status).toBe(404);
  });

  it('refuses methods other than GET', async () => {
    expect((await get(APP_ENTRY_URL, 'POST')).status).toBe(405);
  });

  it('refuses a malformed percent-encoding without throwing', async () => {
    expect((await get('app://renderer/%E0%A4%A.js')).status).toBe(404);
  });

  it('registers the scheme as standard and secure, with no CSP bypass, fetch or CORS', () => {
    expect(APP_PRIVILEGED_SCHEME).toEqual({
      scheme: 'app',
      privileges: { standard: true, secure: true },
    });
  });
});
