/**
 * The HTML of the login page and of the signed-out page (docs/OAUTH.md §Login page). No script
 * at all; the one inline style block is allowed by its hash, so the CSP is `default-src 'none'`
 * with `style-src` that hash, `form-action` this server and the verified redirect URI's origin
 * (the approval's 303 is a form navigation, which the browser checks against `form-action`),
 * `frame-ancestors 'none'` and `base-uri 'none'`. Every value shown is HTML-escaped.
 */
import { createHash } from 'node:crypto';
import type { LoginView } from './login.js';

const STYLE = `
:root { color-scheme: light dark; font: 16px/1.45 system-ui, sans-serif; }
body { margin: 0; padding: 1.5rem 1rem; }
main { max-width: 34rem; margin: 0 auto; }
h1 { font-size: 1.4rem; margin: 0 0 .5rem; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem .75rem; margin: 1rem 0; }
dt { font-weight: 600; }
dd { margin: 0; overflow-wrap: anywhere; font-family: ui-monospace, monospace; }
label { display: block; font-weight: 600; margin-top: 1rem; }
input, textarea { box-sizing: border-box; width: 100%; font: inherit; padding: .4rem; }
textarea { font-family: ui-monospace, monospace; }
.help { margin: .25rem 0 0; font-size: .9rem; }
.error { border: 2px solid #b00020; padding: .5rem; font-weight: 600; }
.actions { display: flex; gap: .75rem; margin-top: 1.25rem; }
button { font: inherit; padding: .5rem 1.25rem; }
`;
const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The origin (or, for a private-use scheme, the scheme) a verified redirect URI goes to. */
function formTarget(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.origin === 'null' ? url.protocol : url.origin;
}

/** Security headers of every page this server renders. */
export function pageHeaders(redirectUri?: string): Record<string, string> {
  const formAction = redirectUri === undefined ? "'self'" : `'self' ${formTarget(redirectUri)}`;
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
    'cache-control': 'no-store',
    pragma: 'no-cache',
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  };
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

/**
 * The login form. `subjects` are offered as suggestions (the config's `oauth.claims.subjects`);
 * any subject can be typed.
 */
export function renderLoginPage(view: LoginView, subjects: readonly string[]): string {
  const e = escapeHtml;
  const error =
    view.error === undefined
      ? ''
      : `<p class="error" role="alert" id="login-error">${e(view.error)}</p>\n`;
  const options = subjects
    .slice(0, 200)
    .map((s) => `<option value="${e(s)}"></option>`)
    .join('');
  const describedBy = view.error === undefined ? '' : ' login-error';
  return page(
    `Sign in to ${view.clientId}`,
    `<h1>Sign in to ${e(view.clientId)}</h1>
<p>The QA server's login page: choose who signs in. There is no password.</p>
<dl>
<dt>Client</dt><dd id="login-client">${e(view.clientId)}</dd>
<dt>Scope</dt><dd id="login-scope">${e(view.scope)}</dd>
<dt>Returns to</dt><dd id="login-redirect">${e(view.redirectUri)}</dd>
</dl>
${error}<form method="post" action="/api/oauth/login">
<input type="hidden" name="login_id" value="${e(view.loginId)}">
<label for="subject">Subject (<code>sub</code>)</label>
<input id="subject" name="subject" value="${e(view.subject ?? 'demo-user')}" list="subjects" autocomplete="username" spellcheck="false" aria-describedby="subject-help${describedBy}">
<p class="help" id="subject-help">1 to 255 visible ASCII characters, no spaces.</p>
<datalist id="subjects">${options}</datalist>
<label for="claims">Extra ID token claims (JSON object)</label>
<textarea id="claims" name="claims" rows="6" spellcheck="false" aria-describedby="claims-help${describedBy}">${e(view.claimsText ?? '')}</textarea>
<p class="help" id="claims-help">For example {"email": "alice@example.test", "roles": ["qa"]}. Added to the configured claims; iss, sub, aud, the times, nonce and the hashes are the server's own.</p>
<div class="actions">
<button type="submit" name="action" value="approve">Sign in</button>
<button type="submit" name="action" value="deny">Deny</button>
</div>
</form>`,
  );
}

/** The end-session endpoint's answer when there is nowhere to send the browser back to. */
export function renderSignedOutPage(): string {
  return page(
    'Signed out',
    `<h1>Signed out</h1>
<p id="signed-out">You are signed out of the QA server. You can close this page.</p>`,
  );
}
