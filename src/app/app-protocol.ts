/**
 * The window's page is served by our own `app://renderer/` scheme instead of file:// (Electron
 * security checklist §18 "Avoid usage of the file:// protocol and prefer usage of custom
 * protocols"): a file:// page may read any local file its URL names, and a file:// origin is
 * shared by every file on disk. The handler serves only the built renderer directory, only the
 * file types the page uses, and sends the strict CSP as a response header on every response
 * (checklist §7: a header also covers what a meta tag cannot, and the page keeps its meta tag).
 */
import { readFile, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';

export const APP_SCHEME = 'app';
/** Standard schemes need a host; the page's origin is app://renderer. */
export const APP_HOST = 'renderer';
export const APP_ENTRY_URL = `${APP_SCHEME}://${APP_HOST}/index.html`;

/**
 * The page's policy, in Electron and in the web window alike; src/renderer/index.html carries
 * the same one in its meta tag (tested). `connect-src 'self'` is the web window's bridge; in
 * Electron 'self' is app://renderer, which is not registered for the Fetch API, so the page
 * reaches no network at all (docs/SECURITY.md §6).
 */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'";

/**
 * Registered before `ready`: standard (an origin, relative URLs) and secure (like https).
 * No bypassCSP, no fetch, no CORS, no service workers: the page only loads its own files.
 */
export const APP_PRIVILEGED_SCHEME: {
  readonly scheme: string;
  readonly privileges: { readonly standard: boolean; readonly secure: boolean };
} = {
  scheme: APP_SCHEME,
  privileges: { standard: true, secure: true },
};

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
};

const SECURITY_HEADERS = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
};

/** Resolves a request path inside rootDir, or null for anything that is not plainly inside. */
function fileFor(rootDir: string, url: URL): string | null {
  if (url.host !== APP_HOST) return null;
  let path: string;
  try {
    path = decodeURIComponent(url.pathname);
  } catch {
    return null; // malformed %-encoding
  }
  // Encoded separators and dot segments have no business in our page's URLs.
  if (path.includes('\\') || path.includes('\0')) return null;
  if (path.split('/').some((segment) => segment === '..' || segment === '.')) return null;
  const file = resolve(join(rootDir, path));
  return file.startsWith(rootDir + sep) ? file : null;
}

function refusal(status: 404 | 405): Response {
  return new Response(null, { status, headers: SECURITY_HEADERS });
}

/**
 * Builds the `protocol.handle('app', …)` handler over the built renderer directory. Never
 * throws: anything it will not serve is a 404 (or 405 for a method other than GET).
 */
export function createAppProtocolHandler(options: {
  readonly rootDir: string;
}): (request: Request) => Promise<Response> {
  const rootDir = resolve(options.rootDir);
  return async (request) => {
    if (request.method !== 'GET') return refusal(405);
    const file = fileFor(rootDir, new URL(request.url));
    const type = file === null ? undefined : CONTENT_TYPES[extname(file)];
    if (file === null || type === undefined) return refusal(404);
    try {
      if (!(await stat(file)).isFile()) return refusal(404);
      const body = await readFile(file);
      return new Response(body, {
        status: 200,
        headers: { ...SECURITY_HEADERS, 'content-type': type },
      });
    } catch {
      return refusal(404);
    }
  };
}
