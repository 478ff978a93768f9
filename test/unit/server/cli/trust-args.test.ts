import { describe, expect, it } from 'vitest';
import { parseArgs } from '#server/cli/main-args.js';

const HEX = 'ab'.repeat(32);

function usage(argv: string[]): string {
  try {
    parseArgs(argv);
  } catch (error) {
    expect(error).toMatchObject({ code: 'USAGE' });
    return (error as Error).message;
  }
  throw new Error('expected a usage error');
}

describe('parseArgs: sign-release', () => {
  it('signs a new release with several --release-key files', () => {
    expect(
      parseArgs([
        'sign-release',
        '--release-key',
        'a.json',
        '--release-key',
        'b.json',
        '--version',
        '1.0.0',
        '--out',
        'r.json',
        'build',
      ]),
    ).toEqual({
      kind: 'sign-release',
      releaseKeyFiles: ['a.json', 'b.json'],
      version: '1.0.0',
      folder: 'build',
      bundle: undefined,
      out: 'r.json',
      artifactBaseUrl: undefined,
    });
  });

  it('co-signs an existing bundle in place', () => {
    expect(
      parseArgs(['sign-release', '--release-key', 'k.json', '--bundle', 'r.json']),
    ).toMatchObject({
      kind: 'sign-release',
      bundle: 'r.json',
      folder: undefined,
    });
  });

  it('refuses sign-release without --release-key', () => {
    expect(usage(['sign-release', '--version', '1.0.0', '--out', 'o', 'f'])).toContain(
      '--release-key',
    );
  });

  it('refuses a new bundle without --out', () => {
    expect(usage(['sign-release', '--release-key', 'k', '--version', '1.0.0', 'f'])).toContain(
      '--out',
    );
  });

  it('takes --previous-bundle, the release whose packs are kept (docs/PROTOCOL.md §2.8)', () => {
    expect(
      parseArgs([
        'sign-release',
        '--release-key',
        'k.json',
        '--version',
        '1.1.0',
        '--previous-bundle',
        'release-1.0.0.json',
        '--out',
        'r.json',
        'build',
      ]),
    ).toMatchObject({ kind: 'sign-release', previousBundle: 'release-1.0.0.json' });
  });

  it('refuses --previous-bundle with --bundle (co-signing keeps the table as it is)', () => {
    expect(
      usage(['sign-release', '--release-key', 'k', '--bundle', 'b', '--previous-bundle', 'p']),
    ).toContain('--previous-bundle');
  });

  it('refuses --version with --bundle (the bundle is signed as it is)', () => {
    expect(
      usage(['sign-release', '--release-key', 'k', '--bundle', 'b', '--version', '1.0.0']),
    ).toContain('--bundle');
  });
});

describe('parseArgs: rotate-keys', () => {
  it('parses a routine freshness rotation', () => {
    expect(parseArgs(['rotate-keys', '--data-dir', 'd', '--new-freshness-key'])).toEqual({
      kind: 'rotate-keys',
      dataDir: 'd',
      rootKeyFiles: [],
      newRootKeyFiles: [],
      rootThreshold: undefined,
      releasePubkeys: [],
      newReleaseKey: false,
      releaseThreshold: undefined,
      newFreshnessKey: true,
    });
  });

  it('parses a root rotation with thresholds and offline release keys', () => {
    expect(
      parseArgs([
        'rotate-keys',
        '--data-dir',
        'd',
        '--root-key',
        'old.json',
        '--new-root-key',
        'n1.json',
        '--new-root-key',
        'n2.json',
        '--root-threshold',
        '2',
        '--release-pubkey',
        HEX,
        '--release-threshold',
        '1',
      ]),
    ).toMatchObject({
      rootKeyFiles: ['old.json'],
      newRootKeyFiles: ['n1.json', 'n2.json'],
      rootThreshold: 2,
      releasePubkeys: [HEX],
      releaseThreshold: 1,
    });
  });

  it('refuses a release pubkey that is not 64 lowercase hex', () => {
    expect(usage(['rotate-keys', '--data-dir', 'd', '--release-pubkey', 'AB'])).toContain('hex');
  });

  it('refuses a threshold above 16', () => {
    expect(usage(['rotate-keys', '--data-dir', 'd', '--root-threshold', '17'])).toContain(
      '1 to 16',
    );
  });

  it('refuses --new-release-key with --release-pubkey', () => {
    expect(
      usage(['rotate-keys', '--data-dir', 'd', '--new-release-key', '--release-pubkey', HEX]),
    ).toContain('not both');
  });

  it('refuses rotate-keys without --data-dir', () => {
    expect(usage(['rotate-keys', '--new-freshness-key'])).toContain('--data-dir');
  });
});

describe('parseArgs: publish --bundle and --freshness-lifetime-s', () => {
  it('publishes a bundle without --version', () => {
    expect(parseArgs(['publish', '--data-dir', 'd', '--bundle', 'r.json', 'build'])).toMatchObject({
      kind: 'publish',
      bundle: 'r.json',
      version: undefined,
    });
  });

  it('refuses --version with --bundle', () => {
    expect(
      usage(['publish', '--data-dir', 'd', '--bundle', 'r.json', '--version', '1.0.0', 'build']),
    ).toContain('--bundle');
  });

  it('takes the freshness lifetime from 60 s to 7 days', () => {
    const c = parseArgs(['--freshness-lifetime-s', '604800']);
    expect(c.kind === 'serve' ? c.options.freshnessLifetimeS : 0).toBe(604800);
    expect(usage(['--freshness-lifetime-s', '59'])).toContain('60 to 604800');
  });

  it('refuses a freshness lifetime above 7 days, saying why', () => {
    expect(usage(['--freshness-lifetime-s', '604801'])).toContain(
      '(7 days: TUF clients of this server refuse a longer-lived timestamp)',
    );
  });
});
