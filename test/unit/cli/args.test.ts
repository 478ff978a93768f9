import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseCli, USAGE } from '#cli/args.js';
import { tempDirs } from '#test/temp-dir.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const KEY = 'a'.repeat(64);
const base = ['--dir', '/tmp/x', '--pubkey', KEY];

function code(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
}

describe('parseCli', () => {
  it('parses a full update command with limits', () => {
    const o = parseCli(
      [
        'update',
        ...base,
        '--pubkey',
        'b'.repeat(64),
        '--base-url',
        'http://x',
        '--machine-key',
        'k',
        '--parallel',
        '2',
        '--min-bytes-per-s',
        '0',
        '--json',
      ],
      undefined,
    );
    expect(o).toMatchObject({
      command: 'update',
      baseUrl: 'http://x',
      machineKey: 'k',
      json: true,
      dir: '/tmp/x',
    });
    expect(o.pubkeys).toHaveLength(2);
    expect(o.limits).toEqual({ parallel: 2, minBytesPerS: 0 });
  });

  it('--no-proxy ignores the proxy variables for the run (off by default; a flag)', () => {
    const net = ['--base-url', 'http://x', '--machine-key', 'k'];
    expect(parseCli(['check', ...base, ...net], undefined).noProxy).toBe(false);
    expect(parseCli(['check', ...base, ...net, '--no-proxy'], undefined).noProxy).toBe(true);
    expect(USAGE).toContain('--no-proxy');
  });

  it('--require-nonce turns on the request nonce (off by default; a flag, no value)', () => {
    const net = ['--base-url', 'http://x', '--machine-key', 'k'];
    expect(parseCli(['update', ...base, ...net], undefined).requireNonce).toBe(false);
    expect(parseCli(['update', ...base, ...net, '--require-nonce'], undefined).requireNonce).toBe(
      true,
    );
    expect(
      code(() => parseCli(['update', ...base, ...net, '--require-nonce=yes'], undefined)),
    ).toBe('CONFIG_INVALID');
  });

  it('accepts the bandwidth cap flag', () => {
    expect(parseCli(['status', ...base, '--max-bytes-per-s', '1048576'], undefined).limits).toEqual(
      {
        maxBytesPerS: 1048576,
      },
    );
  });

  it('takes the machine key from the environment when the flag is absent', () => {
    expect(parseCli(['check', ...base, '--base-url', 'http://x'], 'from-env').machineKey).toBe(
      'from-env',
    );
  });

  it('takes the machine key from --machine-key-file before the environment', async () => {
    const file = join(await dirs.make(), 'mk');
    await writeFile(file, 'from-file\n', { mode: 0o600 });
    const args = ['check', ...base, '--base-url', 'http://x', '--machine-key-file', file];
    expect(parseCli(args, 'from-env').machineKey).toBe('from-file');
  });

  it('refuses --machine-key with --machine-key-file (CONFIG_INVALID)', () => {
    const args = ['check', ...base, '--machine-key', 'k', '--machine-key-file', '/x'];
    expect(code(() => parseCli(args, undefined))).toBe('CONFIG_INVALID');
  });

  it('needs no base URL or machine key for local commands', () => {
    expect(parseCli(['status', ...base], undefined).command).toBe('status');
  });

  it('refuses an unknown command (CONFIG_INVALID)', () => {
    expect(code(() => parseCli(['upgrade', ...base], undefined))).toBe('CONFIG_INVALID');
  });

  it('refuses an unknown flag (CONFIG_INVALID)', () => {
    expect(code(() => parseCli(['status', ...base, '--force'], undefined))).toBe('CONFIG_INVALID');
  });

  it('takes --trusted-root FILE instead of --pubkey, and --max-timestamp-lifetime-s N', () => {
    const o = parseCli(
      [
        'status',
        '--dir',
        '/tmp/x',
        '--trusted-root',
        '/etc/root.json',
        '--max-timestamp-lifetime-s',
        '3600',
      ],
      undefined,
    );
    expect(o.trustedRoot).toBe('/etc/root.json');
    expect(o.maxTimestampLifetimeS).toBe(3600);
    expect(o.pubkeys).toEqual([]);
    expect(parseCli(['status', ...base], undefined).maxTimestampLifetimeS).toBeUndefined();
  });

  it('refuses a bad --max-timestamp-lifetime-s or an empty --trusted-root (CONFIG_INVALID)', () => {
    for (const bad of ['0', '-1', '1.5', 'week']) {
      expect(
        code(() => parseCli(['status', ...base, '--max-timestamp-lifetime-s', bad], undefined)),
      ).toBe('CONFIG_INVALID');
    }
    expect(
      code(() => parseCli(['status', '--dir', '/tmp/x', '--trusted-root', ''], undefined)),
    ).toBe('CONFIG_INVALID');
  });

  it('refuses a missing --pubkey (CONFIG_INVALID)', () => {
    expect(code(() => parseCli(['status', '--dir', '/tmp/x'], undefined))).toBe('CONFIG_INVALID');
  });

  it('refuses check without a machine key (CONFIG_INVALID)', () => {
    expect(code(() => parseCli(['check', ...base, '--base-url', 'http://x'], undefined))).toBe(
      'CONFIG_INVALID',
    );
  });

  it('refuses a malformed number (CONFIG_INVALID)', () => {
    expect(code(() => parseCli(['status', ...base, '--retries', '-1'], undefined))).toBe(
      'CONFIG_INVALID',
    );
    expect(code(() => parseCli(['status', ...base, '--retries', '1e3'], undefined))).toBe(
      'CONFIG_INVALID',
    );
  });

  it('parses --swap and the health flags', () => {
    expect(parseCli(['confirm', ...base, '--swap', 'pointer'], undefined)).toMatchObject({
      command: 'confirm',
      swap: 'pointer',
    });
    expect(parseCli(['status', ...base, '--health-cmd', 'true'], undefined).health).toEqual({
      mode: 'command',
      command: 'true',
    });
    expect(
      parseCli(['status', ...base, '--health', 'confirm', '--health-timeout-s', '90'], undefined)
        .health,
    ).toEqual({ mode: 'confirm', timeoutMs: 90_000 });
    expect(parseCli(['status', ...base], undefined).health).toBeUndefined();
  });

  it('refuses bad --swap and health flags (CONFIG_INVALID)', () => {
    for (const extra of [
      ['--swap', 'junction'],
      ['--health', 'maybe'],
      ['--health', 'command'],
      ['--health', 'confirm', '--health-cmd', 'true'],
      ['--health-cmd', ' '],
      ['--health-timeout-s', '5'],
      ['--health-cmd', 'true', '--health-timeout-s', '0'],
      ['--health-cmd', 'true', '--health-timeout-s', '1.5'],
    ]) {
      expect(
        code(() => parseCli(['status', ...base, ...extra], undefined)),
        extra.join(' '),
      ).toBe('CONFIG_INVALID');
    }
  });
});
