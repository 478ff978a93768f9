/**
 * The tuf-js peer of bench/updater-peers.ts: a client that does what the TUF client workflow
 * prescribes (refresh metadata, then for every target: look it up, reuse a cached copy whose
 * length and hash match, else download and verify it). Bundled with esbuild and run by plain
 * node, like our CLI, so peak RSS compares like with like.
 *
 *   node tuf-client.mjs METADATA_URL TARGET_URL DIR ROOT_JSON NAMES_FILE PARALLEL
 *
 * Prints one JSON line: {"downloaded": N, "cached": N}.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Updater } from 'tuf-js';

async function main(): Promise<void> {
  const [metadataBaseUrl, targetBaseUrl, dir, rootJson, namesFile, parallelArg] =
    process.argv.slice(2);
  if (
    metadataBaseUrl === undefined ||
    targetBaseUrl === undefined ||
    dir === undefined ||
    rootJson === undefined ||
    namesFile === undefined
  ) {
    throw new Error('usage: METADATA_URL TARGET_URL DIR ROOT_JSON NAMES_FILE [PARALLEL]');
  }
  const parallel = Number(parallelArg ?? 1);
  const metadataDir = join(dir, 'metadata');
  const targetDir = join(dir, 'targets');
  mkdirSync(metadataDir, { recursive: true });
  mkdirSync(targetDir, { recursive: true });
  // The trusted root ships with the application (TUF client workflow 5.2).
  if (!existsSync(join(metadataDir, 'root.json'))) {
    copyFileSync(rootJson, join(metadataDir, 'root.json'));
  }
  const updater = new Updater({
    metadataBaseUrl,
    targetBaseUrl,
    metadataDir,
    targetDir,
    // 10,000 targets are about 1.2 MB of targets.json; the default cap is 5 MB.
    config: { targetsMaxLength: 64 * 1024 * 1024 },
  });
  await updater.refresh();
  const names = readFileSync(namesFile, 'utf8').split('\n').filter(Boolean);
  let next = 0;
  let downloaded = 0;
  let cached = 0;
  const worker = async (): Promise<void> => {
    while (next < names.length) {
      const name = names[next++] ?? '';
      const info = await updater.getTargetInfo(name);
      if (info === undefined) throw new Error(`target ${name} not in the repository`);
      if ((await updater.findCachedTarget(info)) !== undefined) {
        cached++;
        continue;
      }
      await updater.downloadTarget(info);
      downloaded++;
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  process.stdout.write(`${JSON.stringify({ downloaded, cached })}\n`);
}

await main();
