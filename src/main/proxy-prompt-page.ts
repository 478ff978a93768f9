/**
 * The proxy sign-in prompt as a page with no script at all (docs/DESKTOP.md "Proxy sign-in"):
 * a form whose submission is a navigation to `app://proxy-answer/`, which the main process
 * reads in `will-navigate` and cancels, so the answer never loads anywhere and no preload or
 * IPC channel is needed. Pure: the page text and the reading of the answer.
 */
import type { Credential, Question } from './proxy-login.js';

export const ANSWER_ORIGIN = 'app://proxy-answer';

/** Text from the network (the proxy's realm) goes into the page as text, never markup. */
export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );
}

/**
 * The page, for a `data:text/html` URL. No script; the CSP allows none. `form-action app:`
 * names the scheme, not `app://proxy-answer`: Chromium refuses a form posted to a host-source
 * of a non-network scheme (seen with the gave-up page, src/app/gave-up-page.ts), and main
 * cancels every navigation and reads only the answer address (readAnswer).
 */
export function promptPage(question: Question): string {
  const refused = question.refused
    ? '<p role="alert"><strong>The proxy refused that user name and password.</strong></p>'
    : '';
  const realm = question.realm === '' ? '' : ` (“${escapeHtml(question.realm)}”)`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; form-action app:">
<title>Proxy sign-in</title>
<style>body{font:14px system-ui,sans-serif;margin:16px}label{display:block;margin:8px 0 2px}input{width:100%;box-sizing:border-box}p.actions{margin-top:16px;display:flex;gap:8px;justify-content:flex-end}</style>
</head><body>
<h1 style="font-size:16px">Proxy sign-in</h1>
<p>The proxy <strong>${escapeHtml(question.proxy)}</strong>${realm} asks for a user name and password before Verified Updater can check for updates.</p>
${refused}
<form method="get" action="${ANSWER_ORIGIN}/sign-in">
<label for="u">User name</label><input id="u" name="u" autocomplete="username" required autofocus>
<label for="p">Password</label><input id="p" name="p" type="password" autocomplete="current-password">
<p class="actions"><button type="submit" formaction="${ANSWER_ORIGIN}/cancel" formnovalidate>Cancel</button><button type="submit">Sign in</button></p>
</form></body></html>`;
}

/** The data: URL of the page. */
export function promptUrl(question: Question): string {
  return `data:text/html;charset=utf-8,${encodeURIComponent(promptPage(question))}`;
}

/**
 * Reads a navigation of the prompt: a credential, 'cancel', or null when the URL is not an
 * answer (then it is simply refused).
 */
export function readAnswer(url: string): Credential | 'cancel' | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (`${parsed.protocol}//${parsed.host}` !== ANSWER_ORIGIN) return null;
  if (parsed.pathname === '/cancel') return 'cancel';
  if (parsed.pathname !== '/sign-in') return null;
  const username = parsed.searchParams.get('u');
  if (username === null || username === '') return null;
  return { username, password: parsed.searchParams.get('p') ?? '' };
}
