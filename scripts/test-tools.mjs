// Where the two outside tools of `npm test` are: a Chromium for Playwright and nginx for the
// static-host tests. One lookup shared by the set-up step (scripts/test-setup.mjs),
// playwright.config.ts and test/helpers/nginx.ts, so all three always agree on the binary.
// Order: an explicit CHROMIUM_PATH / NGINX_PATH, then Debian's package, then a
// Playwright-managed Chromium (`npx playwright install chromium`) or an nginx on PATH.
import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, join } from 'node:path';

export const DEBIAN_CHROMIUM = '/usr/bin/chromium';
export const DEBIAN_NGINX = '/usr/sbin/nginx';

function isExecutableFile(path) {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The Chromium `npx playwright install chromium` puts in its cache, or undefined. */
function playwrightChromium() {
  try {
    const require = createRequire(import.meta.url);
    /** @type {{ chromium: { executablePath(): string } }} */
    const core = require('playwright-core');
    return core.chromium.executablePath() || undefined;
  } catch {
    return undefined; // playwright-core not installed (before `npm install`)
  }
}

/** The real machine, as the lookups and the set-up step see it. */
export function realProbe() {
  return {
    platform: process.platform,
    env: process.env,
    isRoot: process.getuid?.() === 0,
    isExecutable: isExecutableFile,
    playwrightChromium,
    readText(path) {
      try {
        return readFileSync(path, 'utf8');
      } catch {
        return undefined;
      }
    },
  };
}

/** First executable `name` on the probe's PATH, or undefined. */
export function which(name, probe) {
  const dirs = (probe.env.PATH ?? '').split(delimiter).filter((dir) => dir !== '');
  for (const dir of dirs) {
    const path = join(dir, name);
    if (probe.isExecutable(path)) return path;
  }
  return undefined;
}

function find(override, candidates, probe) {
  if (override !== undefined && override !== '') {
    return probe.isExecutable(override)
      ? { path: override, source: 'env' }
      : { path: override, source: 'env', broken: true };
  }
  for (const [source, path] of candidates) {
    if (path !== undefined && probe.isExecutable(path)) return { path, source };
  }
  return undefined;
}

/** The Chromium to launch, or undefined when there is none. */
export function findChromium(probe = realProbe()) {
  return find(
    probe.env.CHROMIUM_PATH,
    [
      ['debian', DEBIAN_CHROMIUM],
      ['playwright', probe.playwrightChromium()],
    ],
    probe,
  );
}

/** The nginx to start, or undefined when there is none. */
export function findNginx(probe = realProbe()) {
  return find(
    probe.env.NGINX_PATH,
    [
      ['debian', DEBIAN_NGINX],
      ['path', which('nginx', probe)],
    ],
    probe,
  );
}

/** What playwright.config.ts and the nginx helper say when a tool is missing at test time. */
export function missingToolMessage(tool) {
  const [name, places] =
    tool === 'chromium'
      ? ['Chromium', `CHROMIUM_PATH, ${DEBIAN_CHROMIUM}, Playwright's cache`]
      : ['nginx', `NGINX_PATH, ${DEBIAN_NGINX}, PATH`];
  return `${name} not found (looked at ${places}): run \`npm run test:setup\`, which installs it or names the command that does.`;
}
