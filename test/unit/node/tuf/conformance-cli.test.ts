import { createServer, type Server } from 'node:http';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseConformanceArgs, runConformanceCli } from '#node/tuf/index.js';
import { SimRepo } from '../../core/tuf/sim-repo.js';
import { BASE, NOW, TARGETS } from '../../core/tuf/tuf-kit.js';

describe('parseConformanceArgs (CLIENT-CLI.md)', () => {
  it('reads options around the command and repeated --target-name in order', () => {
    const args = parseConformanceArgs([
      '--metadata-url',
      'http://h/m',
      '--metadata-dir',
      '/md',
      '--target-name',
      'a',
      '--target-name',
      'b',
      '--target-dir',
      '/t',
      '--target-base-url',
      'http://h/t',
      'download',
    ]);
    expect(args).toMatchObject({
      command: 'download',
      targetNames: ['a', 'b'],
      metadataDir: '/md',
    });
    expect(args.maxTimestampLifetimeS).toBe(Number.POSITIVE_INFINITY);
  });

  it('refuses an unknown command and a missing --metadata-dir', () => {
    expect(() => parseConformanceArgs(['--metadata-dir', '/md', 'fly'])).toThrow(/unknown command/);
    expect(() => parseConformanceArgs(['refresh'])).toThrow(/--metadata-dir/);
  });
});

describe('runConformanceCli against a loopback repository', () => {
  const repo = new SimRepo();
  const clock = { nowMs: () => NOW };
  let server: Server;
  let origin = '';
  let dir = '';

  beforeAll(async () => {
    repo.addTarget('targets', 'dir/file.txt', 'content');
    repo.bump('targets');
    server = createServer((req, res) => {
      const body = repo.fetcher.files.get(`https://repo.test${req.url ?? ''}`);
      if (body === undefined) res.writeHead(404).end();
      else res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    dir = await mkdtemp(join(tmpdir(), 'tuf-cli-'));
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  it('inits, refreshes and downloads (exit 0), then refuses an unknown target (exit 1)', async () => {
    const md = join(dir, 'metadata');
    const targets = join(dir, 'targets');
    await Promise.all([md, targets].map((d) => mkdir(d)));
    await writeFile(join(dir, 'root.json'), repo.initialRoot);
    const metadataUrl = `${origin}${new URL(BASE).pathname}`;
    const targetBaseUrl = `${origin}${new URL(TARGETS).pathname}`;
    expect(await runConformanceCli(['--metadata-dir', md, 'init', join(dir, 'root.json')])).toBe(0);
    const common = ['--metadata-dir', md, '--metadata-url', metadataUrl];
    expect(await runConformanceCli([...common, 'refresh'], clock)).toBe(0);
    expect((await readdir(md)).sort()).toEqual([
      'root.json',
      'snapshot.json',
      'targets.json',
      'timestamp.json',
    ]);
    const download = [...common, '--target-dir', targets, '--target-base-url', targetBaseUrl];
    expect(
      await runConformanceCli([...download, '--target-name', 'dir/file.txt', 'download'], clock),
    ).toBe(0);
    expect(await readFile(join(targets, 'dir%2Ffile.txt'), 'utf8')).toBe('content');
    expect(await runConformanceCli([...download, '--target-name', 'nope', 'download'], clock)).toBe(
      1,
    );
  });
});
