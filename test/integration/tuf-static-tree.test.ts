/**
 * `publish --static-out DIR` (docs/PROTOCOL.md §TUF repository, Static tree): the CLI writes
 * the repository as plain files, a plain static server serves them as they are, and tuf-js
 * refreshes from them and downloads a target by its consistent-snapshot name.
 */
import { readFile, readdir, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '#test/server-harness.js';
import { serveStaticFiles } from '#test/static-files.js';
import { ownTufClient } from '#test/own-tuf-client.js';
import { tufJsClient } from '#test/tuf-js-client.js';
import { tempDirs } from '#test/updater-harness.js';

const dirs = tempDirs();

afterAll(async () => {
  await dirs.cleanup();
});

describe('publish --static-out', () => {
  it('writes a tree that tuf-js reads from a plain static server', async () => {
    const dataDir = await dirs.make('tuf-static-data-');
    const folder = await dirs.make('tuf-static-folder-');
    const out = await dirs.make('tuf-static-out-');
    await mkdir(join(folder, 'lib'));
    await writeFile(join(folder, 'lib', 'core.bin'), 'core bytes, version 2.0.0\n');
    await writeFile(join(folder, 'app.bin'), 'app bytes, version 2.0.0\n');
    const run = await runCli(
      [
        'publish',
        '--data-dir',
        dataDir,
        '--init',
        '--version',
        '2.0.0',
        '--static-out',
        out,
        folder,
      ],
      60_000,
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ static_out: { targets: 2, packs: 1 } });
    // The two small files are one pack (docs/PROTOCOL.md §2.8), written where the server
    // serves blobs, in name order.
    const packDir = join(out, 'api', 'updates', 'artifacts');
    const [packName] = await readdir(packDir);
    expect(await readFile(join(packDir, packName ?? ''), 'utf8')).toBe(
      'app bytes, version 2.0.0\ncore bytes, version 2.0.0\n',
    );
    const top = (await readdir(out)).sort();
    expect(top).toContain('1.root.json');
    expect(top).toContain('timestamp.json');
    expect(top.some((n) => /^\d+\.snapshot\.json$/.test(n))).toBe(true);
    expect(top.some((n) => /^\d+\.targets\.json$/.test(n))).toBe(true);

    const files = await serveStaticFiles(out);
    try {
      const client = await tufJsClient({
        dir: await dirs.make('tuf-static-client-'),
        trustedRoot: await readFile(join(out, '1.root.json')),
        metadataBaseUrl: files.baseUrl,
        targetBaseUrl: `${files.baseUrl}/targets`,
      });
      await client.updater.refresh();
      const info = await client.updater.getTargetInfo('lib/core.bin');
      expect(info).toBeDefined();
      // The target names its pack by index into the table the targets' own custom holds.
      expect(info?.custom['pack']).toBe(0);
      expect(typeof info?.custom['pack_offset']).toBe('number');
      const targetsName = top.filter((n) => /^\d+\.targets\.json$/.test(n)).pop() ?? '';
      const targets = JSON.parse(await readFile(join(out, targetsName), 'utf8')) as {
        signed: { custom: { packs: { sha256: string }[] } };
      };
      expect(targets.signed.custom.packs.map((p) => p.sha256)).toEqual([packName]);
      const path = await client.updater.downloadTarget(info!, join(client.targetDir, 'core.bin'));
      expect(await readFile(path, 'utf8')).toBe('core bytes, version 2.0.0\n');
      expect(files.requested.some((p) => /^\/targets\/lib\/[0-9a-f]{64}\.core\.bin$/.test(p))).toBe(
        true,
      );
      const own = await ownTufClient({
        dir: await dirs.make('tuf-static-own-'),
        trustedRoot: await readFile(join(out, '1.root.json')),
        metadataBaseUrl: files.baseUrl,
      });
      const app = await own.updater.requireTargetInfo('app.bin');
      const appBytes = await own.updater.downloadTarget(app, `${files.baseUrl}/targets`);
      expect(new TextDecoder().decode(appBytes)).toBe('app bytes, version 2.0.0\n');
    } finally {
      await files.close();
    }
  });
});
