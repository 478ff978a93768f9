/**
 * The publisher that test/integration/server-publish-kill.test.ts kills with -9: a real
 * process that opens DATA_DIR with startServer, says `publishing` on stdout, publishes VERSION
 * with the artifacts of FOLDER (every file in it), then says `published` and stops once its
 * stdin ends (so a kill after the acknowledgement still lands on a live process).
 *
 *   node --import tsx test/helpers/publish-kill-child.ts DATA_DIR VERSION FOLDER
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { startServer } from '#server/compose/start-server.js';

const [dataDir, version, folder] = process.argv.slice(2);
if (dataDir === undefined || version === undefined || folder === undefined) process.exit(2);
const server = await startServer({ dataDir, simulate: false, logLevel: 'silent' });
const names = (await readdir(folder)).sort();
process.stdout.write('publishing\n');
await server.publish({
  registry_version: version,
  artifacts: names.map((name) => ({ name, path: join(folder, name) })),
});
process.stdout.write('published\n');
process.stdin.resume();
await new Promise((done) => process.stdin.once('end', done));
await server.close();
