/**
 * The files of bench/updater-peers.ts, laid out under one nginx root so every contender reads
 * the same bytes from the same server:
 *
 *   vN/files/<name>              the artifacts of release N (release 2 hard-links the
 *                                unchanged files of release 1)
 *   vN/api/updates/manifest      our signed envelope of release N (static file), its small
 *                                artifacts also members of packs (docs/PROTOCOL.md §2.8)
 *   vN/plain/api/updates/manifest the same release without packs (one GET per artifact)
 *   packs/<sha256>               the packs, built as the server's publisher builds them
 *   vN/tuf/*.json                a TUF repository of the same files (tuf-js)
 *   names.txt                    the artifact names, one per line (tuf-js asks for each)
 */
import { createHash, randomFillSync } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { link, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  encodeManifest,
  generateKeyPair,
  pubkeyToHex,
  signEnvelope,
  type ManifestArtifact,
} from '#protocol';
import { addPacks } from '#server/updates/publish/pack-builder.js';
import { tufSigner, writeTufRepo, type TufTarget } from './tuf-repo.js';
import { MiB, writeRandomFile } from './updater-kit.js';

export interface FixtureFile {
  readonly name: string;
  readonly size: number;
  readonly sha256: string;
}

export interface PeersFixture {
  readonly pubkeyHex: string;
  readonly namesFile: string;
  /** TUF's trusted root (shipped with the client). */
  readonly rootJson: string;
  readonly files: readonly FixtureFile[];
  /** The name whose content differs in release 2, if there is one (the first of several). */
  readonly changed: string | undefined;
  /** Every name whose content differs in release 2 (`changes` of them, spread evenly). */
  readonly changedNames: readonly string[];
}

const nameOf = (i: number, count: number): string =>
  `f${String(i).padStart(String(count - 1).length, '0')}.bin`;

async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Writes one random file; small ones in one call, large ones 8 MiB at a time. */
async function randomFile(path: string, size: number): Promise<string> {
  if (size > 8 * MiB) {
    await writeRandomFile(path, size);
    return sha256OfFile(path);
  }
  const bytes = randomFillSync(Buffer.allocUnsafe(size));
  await writeFile(path, bytes);
  return createHash('sha256').update(bytes).digest('hex');
}

type Keys = { ours: ReturnType<typeof generateKeyPair>; tuf: ReturnType<typeof tufSigner> };

async function writeManifest(
  dir: string,
  version: number,
  artifacts: readonly ManifestArtifact[],
  keys: Keys,
): Promise<void> {
  const now = Date.now();
  const payload = encodeManifest({
    registry_version: `${version}.0.0`,
    issued_at: new Date(now - 60_000).toISOString(),
    expires_at: new Date(now + 7 * 86_400_000).toISOString(),
    artifacts,
  });
  const envelope = signEnvelope(payload, keys.ours.secretKey, keys.ours.publicKey);
  await mkdir(join(dir, 'api', 'updates'), { recursive: true });
  await writeFile(join(dir, 'api', 'updates', 'manifest'), JSON.stringify(envelope));
}

/** Release N's artifacts with packs (pack-builder.ts), the packs written to `root/packs`. */
async function packed(
  root: string,
  baseUrl: string,
  version: number,
  artifacts: readonly ManifestArtifact[],
  previous: readonly ManifestArtifact[] | undefined,
): Promise<ManifestArtifact[]> {
  const pathOf = new Map(
    artifacts.map((a) => [a.sha256, join(root, `v${version}`, 'files', a.name)]),
  );
  await mkdir(join(root, 'packs'), { recursive: true });
  return addPacks(artifacts, previous, {
    read: (sha256) => readFile(pathOf.get(sha256) as string),
    put: async (bytes) => {
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      await writeFile(join(root, 'packs', sha256), bytes);
      return { sha256, size: bytes.length };
    },
    urlOf: (sha256) => `${baseUrl}/packs/${sha256}`,
  });
}

async function publish(
  root: string,
  baseUrl: string,
  version: number,
  files: readonly FixtureFile[],
  keys: Keys,
  previous?: readonly ManifestArtifact[],
): Promise<ManifestArtifact[]> {
  const release = join(root, `v${version}`);
  const artifacts: ManifestArtifact[] = files.map((f) => ({
    name: f.name,
    size: f.size,
    sha256: f.sha256,
    url: `${baseUrl}/v${version}/files/${f.name}`,
  }));
  const withPacks = await packed(root, baseUrl, version, artifacts, previous);
  await writeManifest(release, version, withPacks, keys);
  await writeManifest(join(release, 'plain'), version, artifacts, keys);
  const targets: TufTarget[] = files.map((f) => ({
    path: f.name,
    length: f.size,
    sha256: f.sha256,
  }));
  await writeTufRepo(join(release, 'tuf'), keys.tuf, targets, version);
  return withPacks;
}

/**
 * Builds release 1 (`count` random files of `size` bytes) and, when `changeOne` is set,
 * release 2 with `changes` files' content replaced (one by default, the middle one).
 * `baseUrl` is where clients reach nginx (a proxy in front of it may take its place), for
 * absolute artifact URLs.
 */
export async function buildFixture(
  root: string,
  baseUrl: string,
  count: number,
  size: number,
  changeOne: boolean,
  changes = 1,
): Promise<PeersFixture> {
  const keys = { ours: generateKeyPair(), tuf: tufSigner() };
  const v1Files = join(root, 'v1', 'files');
  await mkdir(v1Files, { recursive: true });
  const files: FixtureFile[] = [];
  for (let i = 0; i < count; i++) {
    const name = nameOf(i, count);
    files.push({ name, size, sha256: await randomFile(join(v1Files, name), size) });
  }
  const v1 = await publish(root, baseUrl, 1, files, keys);
  const namesFile = join(root, 'names.txt');
  await writeFile(namesFile, files.map((f) => f.name).join('\n') + '\n');
  const changedNames: string[] = [];
  if (changeOne) {
    const v2Files = join(root, 'v2', 'files');
    await mkdir(v2Files, { recursive: true });
    // Evenly spread, the middle of each stretch: one change is the middle file.
    const at = new Set(
      Array.from({ length: Math.min(changes, count) }, (_, k) =>
        Math.floor(((k + 0.5) * count) / changes),
      ),
    );
    const v2 = [...files];
    for (const [i, f] of files.entries()) {
      if (at.has(i)) {
        changedNames.push(f.name);
        v2[i] = { ...f, sha256: await randomFile(join(v2Files, f.name), size) };
      } else {
        await link(join(v1Files, f.name), join(v2Files, f.name));
      }
    }
    await publish(root, baseUrl, 2, v2, keys, v1);
  }
  return {
    pubkeyHex: pubkeyToHex(keys.ours.publicKey),
    namesFile,
    rootJson: join(root, 'v1', 'tuf', 'root.json'),
    files,
    changed: changedNames[0],
    changedNames,
  };
}
