/**
 * The page the window shows once reloading has given up (docs/DESKTOP.md "Lifecycle"). It must
 * work when our own page or its bridge is what fails, so it is a `data:` URL with no script and
 * no dependency on the preload or the app:// scheme. Its Reload button submits a form to
 * `app://window-recovery/reload`, a navigation the main process reads in `will-navigate` and
 * cancels (as the proxy prompt does, docs/DESKTOP.md "Proxy sign-in"). The CSP allows no
 * script, the one style element by its hash, and forms only to the app: scheme.
 */
import { createHash } from 'node:crypto';

export const RECOVERY_ORIGIN = 'app://window-recovery';
export const GAVE_UP_MESSAGE = 'The window stopped working. Your updates are not affected.';

const STYLE =
  ':root{color-scheme:light dark}body{font:14px system-ui,sans-serif;margin:24px;max-width:36em}' +
  'h1{font-size:16px}button{font:inherit;padding:6px 16px}';

/** The CSP source that allows exactly STYLE (CSP Level 3 hash-source). */
export function styleHashSource(): string {
  return `'sha256-${createHash('sha256').update(STYLE, 'utf8').digest('base64')}'`;
}

/**
 * The page's policy: no script at all, one known style, forms only to the app: scheme. A
 * scheme-source, not the host-source `app://window-recovery`: Chromium refuses the latter for
 * a scheme it does not know as standard (seen in test/e2e/gave-up-page.spec.ts). Every
 * navigation of the window is cancelled anyway; main acts only on RECOVERY_ORIGIN/reload.
 */
export function gaveUpPolicy(): string {
  return `default-src 'none'; style-src ${styleHashSource()}; base-uri 'none'; form-action app:`;
}

/** The page's HTML. Fixed text only: nothing from the failure goes into it. */
export function gaveUpPage(): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${gaveUpPolicy()}">
<title>Verified Updater</title>
<style>${STYLE}</style>
</head><body><main>
<h1>Verified Updater</h1>
<p role="alert">${GAVE_UP_MESSAGE}</p>
<form method="get" action="${RECOVERY_ORIGIN}/reload"><button type="submit" autofocus>Reload</button></form>
</main></body></html>`;
}

/** The data: URL of the page. */
export function gaveUpUrl(): string {
  return `data:text/html;charset=utf-8,${encodeURIComponent(gaveUpPage())}`;
}

/** True when a navigation is the page's Reload button; anything else is not an answer. */
export function isReloadRequest(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  return `${parsed.protocol}//${parsed.host}` === RECOVERY_ORIGIN && parsed.pathname === '/reload';
}
