import { describe, expect, it } from 'vitest';
import { parseArgs, UsageError } from '#server/cli/main-args.js';
import { DEFAULT_OPTIONS } from '#server/compose/options.js';

function serve(argv: string[]) {
  const c = parseArgs(argv);
  if (c.kind !== 'serve') throw new Error(`expected serve, got ${c.kind}`);
  return c.options;
}

describe('parseArgs: server flags', () => {
  it('gives only the flags given, so the defaults and a --config fill the rest', () => {
    expect(serve([])).toEqual({});
    expect({ ...DEFAULT_OPTIONS, ...serve([]) }).toEqual(DEFAULT_OPTIONS);
  });

  it('takes --config FILE (docs/SERVER.md §Config file)', () => {
    expect(serve(['--config', 'qa.json', '--port', '0'])).toEqual({ config: 'qa.json', port: 0 });
    expect(() => parseArgs(['--config', ''])).toThrow(UsageError);
    expect(() => parseArgs(['--config'])).toThrow(UsageError);
  });

  it('parses every flag of every area', () => {
    const o = serve([
      '--port',
      '8080',
      '--host',
      '0.0.0.0',
      '--dev',
      '--data-dir',
      '/tmp/d',
      '--seed',
      '7',
      '--node-key',
      'k.json',
      '--simulate',
      'off',
      '--simulate-machines',
      '12',
      '--qa-client-secret',
      's3cret',
      '--clients-file',
      'c.json',
      '--issuer',
      'https://id.example',
      '--log-level',
      'warn',
      '--max-body-bytes',
      '2048',
    ]);
    expect(o).toEqual({
      port: 8080,
      host: '0.0.0.0',
      dev: true,
      dataDir: '/tmp/d',
      seed: 7,
      nodeKeyFile: 'k.json',
      simulate: false,
      simulateMachines: 12,
      qaClientSecret: 's3cret',
      clientsFile: 'c.json',
      issuer: 'https://id.example',
      logLevel: 'warn',
      maxBodyBytes: 2048,
    });
  });

  it('takes the socket limits and the per-address cap (docs/SERVER.md §Sockets)', () => {
    expect(
      serve(['--max-connections', '40', '--fd-reserve', '0', '--max-connections-per-address', '9']),
    ).toEqual({ maxConnections: 40, fdReserve: 0, maxConnectionsPerAddress: 9 });
    expect(() => parseArgs(['--max-connections-per-address', '0'])).toThrow(UsageError);
  });

  it('accepts --flag=value', () => {
    expect(serve(['--port=0', '--simulate=on']).simulate).toBe(true);
  });

  it('answers --help with the help command', () => {
    expect(parseArgs(['--port', '1', '--help'])).toEqual({ kind: 'help' });
  });

  const refusals: [string, string[]][] = [
    ['an unknown flag', ['--verbose']],
    ['a port above 65535', ['--port', '70000']],
    ['a negative port', ['--port', '-1']],
    ['a port that is not a number', ['--port', 'http']],
    ['a missing value', ['--port']],
    ['--simulate yes', ['--simulate', 'yes']],
    ['an unknown log level', ['--log-level', 'loud']],
    ['an issuer that is not http(s)', ['--issuer', 'ftp://x']],
    ['a flag given twice', ['--port', '1', '--port', '2']],
    ['a stray argument', ['serve']],
    ['--dev with a value', ['--dev=yes']],
    ['an empty data dir', ['--data-dir', '']],
  ];
  for (const [what, argv] of refusals) {
    it(`refuses ${what} with a UsageError`, () => {
      expect(() => parseArgs(argv)).toThrow(UsageError);
    });
  }
});

describe('parseArgs: the refusals say what is wrong (node:util parseArgs tokens)', () => {
  const messages: [string[], string][] = [
    [['--verbose'], 'unknown option --verbose'],
    [['--verbose=1'], 'unknown option --verbose'],
    [['--dev=yes'], '--dev takes no value'],
    [['--port'], '--port needs a value'],
    [['--port', '1', '--port=2'], '--port is given twice'],
    [['--port', '1', 'serve'], 'unexpected argument "serve"'],
    [['-p', '5'], 'unexpected argument "-p"'],
    [['--', 'x'], 'unknown option --'],
    [['--port', '-1'], '--port expects an integer from 0 to 65535, got "-1"'],
    [['--host', ''], '--host needs an address'],
    [['publish', '--port', '1'], 'unknown option --port'],
    [['--prot', '1'], 'unknown option --prot (did you mean --port?)'],
    [['--devv'], 'unknown option --devv (did you mean --dev?)'],
  ];
  for (const [argv, message] of messages) {
    it(`${argv.join(' ')} -> ${message}`, () => {
      expect(() => parseArgs(argv)).toThrow(new UsageError(message));
    });
  }

  it('takes a value that starts with a dash as the value, as before', () => {
    expect(serve(['--host', '--dev']).host).toBe('--dev');
  });

  it('refuses an unknown flag before looking at later ones, in argv order', () => {
    expect(() => parseArgs(['--verbose', '--dev=1'])).toThrow(
      new UsageError('unknown option --verbose'),
    );
  });
});

describe('parseArgs: publish', () => {
  it('parses the publish subcommand', () => {
    expect(
      parseArgs([
        'publish',
        '--data-dir',
        'd',
        '--version',
        '1.2.3',
        'out',
        '--artifact-base-url',
        'https://cdn.example/a',
        '--expires-in-s',
        '60',
      ]),
    ).toEqual({
      kind: 'publish',
      dataDir: 'd',
      version: '1.2.3',
      folder: 'out',
      nodeKeyFile: undefined,
      artifactBaseUrl: 'https://cdn.example/a',
      expiresInS: 60,
      init: false,
    });
  });
  it('publish --notes FILE names the release notes; a bundle carries its own', () => {
    const c = parseArgs([
      'publish',
      '--data-dir',
      'd',
      '--version',
      '1.0.0',
      '--notes',
      'n.md',
      'out',
    ]);
    expect(c).toMatchObject({ kind: 'publish', notesFile: 'n.md' });
    expect(() =>
      parseArgs(['publish', '--data-dir', 'd', '--bundle', 'b.json', '--notes', 'n.md', 'out']),
    ).toThrow(/--notes/);
  });

  it('takes --init for publish (a new node key only on purpose, docs/SERVER.md §Use it)', () => {
    const c = parseArgs(['publish', '--data-dir', 'd', '--version', '1.0.0', '--init', 'out']);
    expect(c).toMatchObject({ kind: 'publish', init: true });
    expect(() =>
      parseArgs(['publish', '--data-dir', 'd', '--version', '1.0.0', '--init=yes', 'out']),
    ).toThrow(UsageError);
  });
  it('refuses publish without --data-dir', () => {
    expect(() => parseArgs(['publish', '--version', '1.0.0', 'out'])).toThrow(UsageError);
  });
  it('refuses publish without a folder', () => {
    expect(() => parseArgs(['publish', '--data-dir', 'd', '--version', '1.0.0'])).toThrow(
      UsageError,
    );
  });
  it('refuses publish with two folders', () => {
    expect(() => parseArgs(['publish', '--data-dir', 'd', '--version', '1', 'a', 'b'])).toThrow(
      UsageError,
    );
  });
});
