// The `repository` and `homepage` of the two npm packages (packages/server, packages/updater;
// docs/RELEASING.md §The npm packages). The root package.json is the one place that says where
// this repository and its home page live; the packages' own package.json files carry neither,
// and `npm pack` copies them in (prepack: `stamp`) and puts the file back afterwards (postpack:
// `restore`). While the root names no public address (a `.invalid` or `.example` host counts as
// none), a package is packed without the field and the prepack says so on stderr, rather than
// carry an address that leads nowhere. The package README links only into the package's own
// docs/ (copied there by its build), so it reads whole without either.
// Usage (in a package's folder): node ../../scripts/package-links.mjs stamp|restore
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Where `stamp` keeps the package.json it replaced, for `restore`. */
export const BACKUP = 'package.json.before-pack';
// RFC 2606 / RFC 6761 names that can never be a real address.
const RESERVED_HOST = /(?:^|\.)(?:invalid|example|test|localhost|example\.(?:com|net|org))$/i;

/** The host of a URL (git+https:, https:, ssh:), or undefined when it is not one. */
function hostOf(url) {
  try {
    return new URL(url.replace(/^git\+/, '')).hostname;
  } catch {
    return undefined;
  }
}

function isPublic(url) {
  const host = typeof url === 'string' ? hostOf(url) : undefined;
  return host !== undefined && host !== '' && !RESERVED_HOST.test(host);
}

/**
 * The links a package gets from the root manifest: `repository` (with the package's
 * `directory` in the repository) and `homepage`, each only when the root names a public one;
 * `missing` lists the fields left out.
 */
export function packageLinks(rootManifest, directory) {
  const links = {};
  const repo = rootManifest.repository;
  const url = typeof repo === 'string' ? repo : repo?.url;
  if (isPublic(url)) links.repository = { type: 'git', url, directory };
  if (isPublic(rootManifest.homepage)) links.homepage = rootManifest.homepage;
  const missing = ['repository', 'homepage'].filter((field) => !(field in links));
  return { links, missing };
}

/** The manifest with the links put after `license` (where npm's own init puts them). */
function withLinks(manifest, links) {
  const out = {};
  for (const [key, value] of Object.entries(manifest)) {
    if (key === 'repository' || key === 'homepage') continue;
    out[key] = value;
    if (key === 'license') Object.assign(out, links);
  }
  return { ...out, ...links };
}

/**
 * Prepack: writes the links into `packageDir`/package.json, keeping the file it replaced as
 * BACKUP. Returns the message to print when a field is left out (else undefined).
 */
export function stampLinks(packageDir, rootDir = root) {
  const file = join(packageDir, 'package.json');
  const backup = join(packageDir, BACKUP);
  // A backup left by a pack that failed before its postpack is the original: start from it.
  const text = readFileSync(existsSync(backup) ? backup : file, 'utf8');
  const manifest = JSON.parse(text);
  const rootManifest = JSON.parse(readFileSync(join(rootDir, 'package.json'), 'utf8'));
  const directory = relative(rootDir, packageDir).split('\\').join('/');
  const { links, missing } = packageLinks(rootManifest, directory);
  if (Object.keys(links).length > 0) {
    writeFileSync(backup, text);
    writeFileSync(file, `${JSON.stringify(withLinks(manifest, links), null, 2)}\n`);
  }
  if (missing.length === 0) return undefined;
  const fields = missing.map((field) => `"${field}"`).join(' and ');
  return (
    `${String(manifest.name)}: packed without ${fields}: the root package.json names no public ` +
    `address for ${missing.length === 1 ? 'it' : 'them'} (docs/RELEASING.md §The npm packages).`
  );
}

/** Postpack: puts back the package.json that `stampLinks` replaced, if it replaced one. */
export function restoreLinks(packageDir) {
  const backup = join(packageDir, BACKUP);
  if (existsSync(backup)) renameSync(backup, join(packageDir, 'package.json'));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [command] = process.argv.slice(2);
  if (command === 'stamp') {
    const message = stampLinks(process.cwd());
    if (message !== undefined) console.error(message);
  } else if (command === 'restore') {
    restoreLinks(process.cwd());
  } else {
    console.error('usage: node scripts/package-links.mjs stamp|restore (in a package folder)');
    process.exitCode = 2;
  }
}
