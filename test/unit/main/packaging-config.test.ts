/**
 * The packaging choices of electron-builder.yml that the layout test does not build: icons at
 * the sizes each OS asks for, signing configured by environment only (no secret in the
 * repository), publisher names, no desktop shortcut for the tray app, a universal macOS build,
 * and the reason for the AppImage toolset (docs/RELEASING.md).
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { signingReport } from '#scripts/build-app.mjs';

const ROOT = resolve(import.meta.dirname, '../../..');
const require = createRequire(import.meta.url);

interface Config {
  win: { icon: string; signtoolOptions: Record<string, unknown> };
  nsis: Record<string, unknown>;
  mac: { icon: string; notarize?: unknown; identity?: unknown };
  linux: { icon: string };
}

async function config(): Promise<{ parsed: Config; text: string }> {
  const text = await readFile(join(ROOT, 'electron-builder.yml'), 'utf8');
  const yaml = require('js-yaml') as { load(text: string): unknown };
  return { parsed: yaml.load(text) as Config, text };
}

/** Width and height of a PNG (RFC 2083 IHDR). */
function pngSize(bytes: Buffer): [number, number] {
  expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
  return [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
}

/** The sizes of each image in a .ico, from its directory; each entry's PNG is checked. */
function icoSizes(bytes: Buffer): number[] {
  expect(bytes.readUInt16LE(2)).toBe(1);
  const count = bytes.readUInt16LE(4);
  const sizes: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const entry = 6 + 16 * i;
    const size = bytes[entry] === 0 ? 256 : (bytes[entry] ?? -1);
    const length = bytes.readUInt32LE(entry + 8);
    const offset = bytes.readUInt32LE(entry + 12);
    expect(pngSize(bytes.subarray(offset, offset + length))).toEqual([size, size]);
    sizes.push(size);
  }
  return sizes;
}

describe('packaging configuration', () => {
  it('has a 1024 px app icon (macOS icon_512x512@2x)', async () => {
    const { parsed } = await config();
    expect(pngSize(await readFile(join(ROOT, parsed.mac.icon)))).toEqual([1024, 1024]);
  });

  it('gives Linux every freedesktop hicolor size', async () => {
    const { parsed } = await config();
    for (const size of [16, 22, 24, 32, 48, 64, 128, 256, 512]) {
      const file = await readFile(join(ROOT, parsed.linux.icon, `${size}x${size}.png`));
      expect(pngSize(file)).toEqual([size, size]);
    }
  });

  it('gives Windows multi-size .ico files for the app and the tray', async () => {
    const { parsed } = await config();
    expect(parsed.win.icon).toBe('resources/icon.ico');
    expect(icoSizes(await readFile(join(ROOT, parsed.win.icon)))).toEqual(
      expect.arrayContaining([16, 24, 32, 48, 256]),
    );
    expect(icoSizes(await readFile(join(ROOT, 'resources/tray.ico')))).toEqual(
      expect.arrayContaining([16, 20, 24, 32]),
    );
  });

  it('creates no desktop shortcut for the tray app, a Start menu entry only', async () => {
    const { parsed } = await config();
    expect(parsed.nsis).toMatchObject({
      createDesktopShortcut: false,
      createStartMenuShortcut: true,
    });
  });

  it('names the publisher, and the same as package.json author', async () => {
    const { parsed } = await config();
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
      author?: { name?: string };
    };
    expect(pkg.author?.name).toBe('Verified Updater contributors');
    expect(parsed.win.signtoolOptions['publisherName']).toEqual([pkg.author?.name]);
  });

  it('keeps every secret out of the repository: certificates and keys come from the environment', async () => {
    const { parsed, text } = await config();
    for (const key of ['certificateFile', 'certificatePassword', 'certificateSha1']) {
      expect(parsed.win.signtoolOptions[key]).toBeUndefined();
    }
    expect(parsed.mac.identity).toBeUndefined();
    // electron-builder notarizes when APPLE_API_* are set; false would switch it off.
    expect(parsed.mac.notarize).toBeUndefined();
    expect(text).not.toMatch(/password\s*:/i);
  });

  it('says why the AppImage toolset is a beta', async () => {
    const { text } = await config();
    const before = text.slice(0, text.indexOf('toolsets:'));
    expect(before).toMatch(/Betas/);
    expect(before).toMatch(/libfuse/);
  });
});

describe('signing report', () => {
  it('says plainly that installers are unsigned without credentials', () => {
    const report = signingReport({});
    expect(report.unsigned).toBe(true);
    expect(report.lines.join('\n')).toMatch(/macOS: UNSIGNED/);
    expect(report.lines.join('\n')).toMatch(/Windows: UNSIGNED/);
    expect(report.lines.join('\n')).toMatch(/NOT NOTARIZED/);
  });

  it('reports signed and notarized with the variables electron-builder reads', () => {
    const report = signingReport(
      {
        CSC_LINK: 'cert.p12',
        CSC_KEY_PASSWORD: 'x',
        APPLE_API_KEY: 'k.p8',
        APPLE_API_KEY_ID: 'id',
        APPLE_API_ISSUER: 'iss',
        WIN_CSC_LINK: 'win.pfx',
      },
      ['mac', 'win'],
    );
    expect(report).toEqual({
      unsigned: false,
      lines: ['macOS: signed, notarized', 'Windows: signed with a certificate file'],
    });
  });

  it('takes Azure Trusted Signing credentials for Windows', () => {
    const report = signingReport(
      { AZURE_TENANT_ID: 't', AZURE_CLIENT_ID: 'c', AZURE_CLIENT_SECRET: 's' },
      ['win'],
    );
    expect(report.unsigned).toBe(false);
    expect(report.lines[0]).toMatch(/Azure Trusted Signing/);
  });

  it('never prints a value', () => {
    const report = signingReport({ CSC_LINK: 'SECRET-PATH', CSC_KEY_PASSWORD: 'SECRET' });
    expect(report.lines.join('\n')).not.toContain('SECRET');
  });
});
