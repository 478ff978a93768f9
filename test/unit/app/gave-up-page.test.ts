import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  GAVE_UP_MESSAGE,
  gaveUpPage,
  gaveUpPolicy,
  gaveUpUrl,
  isReloadRequest,
  RECOVERY_ORIGIN,
} from '#app/gave-up-page.js';

describe('gave-up page', () => {
  it('says the window stopped working and that updates are not affected, with a Reload button', () => {
    const page = gaveUpPage();
    expect(page).toContain(`<p role="alert">${GAVE_UP_MESSAGE}</p>`);
    expect(GAVE_UP_MESSAGE).toBe('The window stopped working. Your updates are not affected.');
    expect(page).toMatch(
      new RegExp(
        `<form method="get" action="${RECOVERY_ORIGIN}/reload"><button type="submit"[^>]*>Reload</button>`,
      ),
    );
  });

  it('has no script and needs nothing of our page: no src, no link, no bridge', () => {
    const page = gaveUpPage();
    expect(page).not.toMatch(/<script|<link|\ssrc=|\son\w+=/i);
    expect(page).not.toContain('app://renderer');
  });

  it('allows no script, only its own style element by hash, and forms only to the app: scheme', () => {
    const policy = gaveUpPolicy();
    expect(policy).toContain("default-src 'none'");
    expect(policy).not.toMatch(/unsafe-inline|script-src/);
    // A scheme-source: Chromium refuses the host-source app://window-recovery (e2e).
    expect(policy).toMatch(/; form-action app:$/);
    const page = gaveUpPage();
    const styles = [...page.matchAll(/<style>([^<]*)<\/style>/g)].map((m) => m[1] ?? '');
    expect(styles).toHaveLength(1);
    const hash = createHash('sha256')
      .update(styles[0] ?? '')
      .digest('base64');
    expect(policy).toContain(`style-src 'sha256-${hash}'`);
    expect(page).toContain(`content="${policy}"`);
  });

  it('is loaded as a data: URL', () => {
    expect(gaveUpUrl().startsWith('data:text/html;charset=utf-8,')).toBe(true);
    expect(decodeURIComponent(gaveUpUrl().split(',')[1] ?? '')).toBe(gaveUpPage());
  });

  it('reads its Reload navigation and nothing else', () => {
    expect(isReloadRequest(`${RECOVERY_ORIGIN}/reload?`)).toBe(true);
    expect(isReloadRequest(`${RECOVERY_ORIGIN}/reload`)).toBe(true);
    expect(isReloadRequest(`${RECOVERY_ORIGIN}/other`)).toBe(false);
    expect(isReloadRequest('app://renderer/reload')).toBe(false);
    expect(isReloadRequest('https://window-recovery/reload')).toBe(false);
    expect(isReloadRequest('not a url')).toBe(false);
  });
});
