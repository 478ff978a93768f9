import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultDataDir, parseServeArgs } from '#cli/serve-args.js';
import { tempDirs } from '#test/temp-dir.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const env = { machineKey: undefined, defaultDataDir: '/data' };

describe('updater serve flags', () => {
  it('defaults: any free port on 127.0.0.1, the demo registry, hourly checks', () => {
    expect(parseServeArgs([], env)).toEqual({
      port: 0,
      listen: '127.0.0.1',
      dataDir: '/data',
      baseUrl: '',
      pubkeys: [],
      machineKey: '',
      checkIntervalMs: 3_600_000,
      requireNonce: false,
      noProxy: false,
      socketLimits: {},
    });
  });

  it('--trusted-root FILE names the TUF root trust starts from; empty is CONFIG_INVALID', () => {
    expect(parseServeArgs(['--trusted-root', '/etc/root.json'], env).trustedRoot).toBe(
      '/etc/root.json',
    );
    expect(() => parseServeArgs(['--trusted-root', ''], env)).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID' }),
    );
  });

  it('socket limits: the companion server’s flag names, each in its range', () => {
    const argv = ['--headers-timeout-ms', '1000', '--request-timeout-ms', '2000'];
    argv.push('--keep-alive-timeout-ms', '300', '--idle-timeout-ms', '4000');
    argv.push('--max-connections', '7', '--fd-reserve', '0');
    expect(parseServeArgs(argv, env).socketLimits).toEqual({
      headersTimeoutMs: 1000,
      requestTimeoutMs: 2000,
      keepAliveTimeoutMs: 300,
      idleTimeoutMs: 4000,
      maxConnections: 7,
      fdReserve: 0,
    });
    expect(() => parseServeArgs(['--max-connections', '0'], env)).toThrow(
      /--max-connections must be between 1 and/,
    );
    expect(() => parseServeArgs(['--idle-timeout-ms', '5s'], env)).toThrow(/whole number/);
  });

  it('--no-proxy: the proxy variables are ignored (docs/UPDATER.md §7, Proxy)', () => {
    expect(parseServeArgs(['--no-proxy'], env).noProxy).toBe(true);
  });

  it('reads the machine key from --machine-key-file (machine-key-file.ts)', async () => {
    const file = join(await dirs.make(), 'mk');
    await writeFile(file, 'from-file\n', { mode: 0o600 });
    expect(parseServeArgs(['--machine-key-file', file], env).machineKey).toBe('from-file');
    expect(() => parseServeArgs(['--machine-key', 'k', '--machine-key-file', file], env)).toThrow(
      /not both/,
    );
  });

  it('reads every flag, and the machine key from the environment', () => {
    const options = parseServeArgs(
      ['--port', '8080', '--listen', '::1', '--data-dir', '/d', '--base-url', 'https://r.example'],
      { machineKey: 'k', defaultDataDir: '/data' },
    );
    expect(options).toMatchObject({
      port: 8080,
      listen: '::1',
      dataDir: '/d',
      baseUrl: 'https://r.example',
      machineKey: 'k',
    });
    const withKeys = parseServeArgs(
      [
        '--pubkey',
        'a',
        '--pubkey',
        'b',
        '--machine-key',
        'flag',
        '--interval-s',
        '60',
        '--require-nonce',
      ],
      { machineKey: 'env', defaultDataDir: '/data' },
    );
    expect(withKeys).toMatchObject({
      pubkeys: ['a', 'b'],
      machineKey: 'flag',
      checkIntervalMs: 60_000,
      requireNonce: true,
    });
  });

  const refused: [string, string[]][] = [
    ['an unknown flag', ['--nope']],
    ['a positional', ['extra']],
    ['a port out of range', ['--port', '65536']],
    ['a port that is not a number', ['--port', '80a']],
    ['a DNS name to listen on', ['--listen', 'example.com']],
    ['an interval under a minute', ['--interval-s', '59']],
    ['an empty data dir', ['--data-dir', '']],
    ['a value for --require-nonce', ['--require-nonce=yes']],
  ];
  for (const [what, argv] of refused) {
    it(`CONFIG_INVALID: ${what}`, () => {
      expect(() => parseServeArgs(argv, env)).toThrow(
        expect.objectContaining({ code: 'CONFIG_INVALID' }),
      );
    });
  }

  it('defaults the data dir to the tray app’s own folder on each platform', () => {
    expect(defaultDataDir('linux', {}, '/home/u')).toBe('/home/u/.config/verified-updater');
    expect(defaultDataDir('linux', { XDG_CONFIG_HOME: '/x' }, '/home/u')).toBe(
      '/x/verified-updater',
    );
    expect(defaultDataDir('darwin', {}, '/Users/u')).toBe(
      '/Users/u/Library/Application Support/verified-updater',
    );
    expect(defaultDataDir('win32', { APPDATA: 'C:/AppData' }, 'C:/u')).toMatch(
      /^C:\/AppData[\\/]verified-updater$/,
    );
  });
});
