// Type-checked (tsc --noEmit, strict) inside the scratch project against the installed
// package's declarations: a QA team's TypeScript sees the API without tsx or our sources.
import {
  startServer,
  verifyManifest,
  UpdateError,
  type RunningServer,
  type ServerOptions,
  type UpdateErrorCode,
} from 'verified-updater-server';

export async function typed(): Promise<string> {
  const options: Partial<ServerOptions> = { dev: true, simulate: false };
  const server: RunningServer = await startServer(options);
  const published = await server.publish({ registry_version: '1.0.0', artifacts: [] });
  const checked = verifyManifest(new Uint8Array(0), [server.nodePubkey]);
  const code: UpdateErrorCode | undefined = new UpdateError('UNKNOWN_KEY', 'x').code;
  // @ts-expect-error: the port is a number, and the declarations say so
  await startServer({ port: '8080' });
  server.clock.advance(1000);
  await server.close();
  return `${published.registry_version} ${checked.manifest.registry_version} ${String(code)}`;
}
