/**
 * The stage of a chunk-delta integration test: the companion server on a real port, an nginx
 * CDN the artifacts are served from (its ranges are what a chunked download asks), and a
 * machine key. Each publish is the next version, its blobs (artifact, chunk index, chunk list)
 * copied under the CDN path, as `artifact_base_url` expects.
 */
import { join } from 'node:path';
import type { ManifestArtifact } from '#protocol/manifest.js';
import type { ServerOptions } from '#server/compose/options.js';
import { startServer, type RunningServer } from '#server/compose/start-server.js';
import { copyEntryBlobs } from './chunk-delta-kit.js';
import { startNginx, type Nginx } from './nginx.js';
import type { tempDirs, UpdaterServer } from './updater-harness.js';

export interface ChunkStage {
  readonly server: RunningServer;
  readonly nginx: Nginx;
  readonly registry: UpdaterServer;
  /** Publishes the next version (1.0.N) of `files`; answers their signed entries. */
  publish(files: readonly { name: string; content: Uint8Array }[]): Promise<ManifestArtifact[]>;
  /** Stops nginx and the server (the temporary directories stay the test's). */
  close(): Promise<void>;
}

export async function startChunkStage(
  dirs: ReturnType<typeof tempDirs>,
  options: { wwwPrefix: string; cdnPath: string; server?: Partial<ServerOptions> },
): Promise<ChunkStage> {
  const server = await startServer(options.server ?? { simulate: false });
  const nginx = await startNginx(await dirs.make(options.wwwPrefix));
  const { machine_key } = await server.updates.mintMachineKey();
  let version = 0;
  return {
    server,
    nginx,
    registry: { baseUrl: server.url, machineKey: machine_key, pubkeyHex: server.nodePubkey },
    async publish(files) {
      version++;
      const result = await server.publish({
        registry_version: `1.0.${version}`,
        artifacts: [...files],
        artifact_base_url: `${nginx.baseUrl}/${options.cdnPath}`,
      });
      for (const entry of result.artifacts) {
        await copyEntryBlobs(server.dataDir, entry, join(nginx.root, options.cdnPath));
      }
      return [...result.artifacts];
    },
    async close() {
      await nginx.stop();
      await server.close();
    },
  };
}
