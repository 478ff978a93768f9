/**
 * A refusal as a person opening the address in a browser sees it (docs/SECURITY.md §6): the
 * same status and code as the JSON body, in a short static page that says what to do. Still
 * refused: nothing of the window is served. Only for a top-level page load (GET, text/html,
 * not under /api/); the bridge keeps its JSON error body.
 */
import type { IncomingMessage } from 'node:http';
import type { WebRefusal } from './web-errors.js';

/** True when the request is a browser opening a page, not a bridge call. */
export function wantsPage(req: IncomingMessage): boolean {
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  return (
    (req.method ?? 'GET') === 'GET' &&
    !path.startsWith('/api/') &&
    (req.headers.accept ?? '').includes('text/html')
  );
}

const ADVICE: Readonly<Partial<Record<WebRefusal['code'], string>>> = {
  UNAUTHORIZED:
    'This window is private to the person who started it. Open the address that <code>updater serve</code> printed in its terminal: it carries a one-time access token. If that address was already used in another browser, stop <code>updater serve</code> and start it again for a new one.',
  HOST_REFUSED:
    'This window answers only to the address <code>updater serve</code> printed (127.0.0.1 or localhost), not to another name pointed at it.',
};

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The page for a refusal: no script, no style, no link (the CSP header forbids them anyway). */
export function refusalPage(refusal: WebRefusal): string {
  const advice = ADVICE[refusal.code] ?? escape(refusal.message);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Verified Updater: not opened</title></head>
<body><main><h1>This updater window cannot be opened here</h1>
<p>${advice}</p>
<p>Code: <code>${escape(refusal.code)}</code> (HTTP ${refusal.status})</p></main></body></html>
`;
}
