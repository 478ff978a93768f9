import { describe, expect, it } from 'vitest';
import {
  ANSWER_ORIGIN,
  escapeHtml,
  promptPage,
  promptUrl,
  readAnswer,
} from '#main/proxy-prompt-page.js';

const question = { proxy: 'proxy.corp:3128', realm: 'office', refused: false };

describe('proxy prompt page', () => {
  it('names the proxy and has no script', () => {
    const page = promptPage(question);
    expect(page).toContain('proxy.corp:3128');
    expect(page).not.toMatch(/<script/i);
    expect(page).toContain("default-src 'none'");
    // The scheme, which Chromium accepts for a form posted to app: (a host-source it refuses).
    expect(page).toMatch(/form-action app:"/);
    expect(page).toContain(`action="${ANSWER_ORIGIN}/sign-in"`);
  });

  it('says when the previous answer was refused', () => {
    expect(promptPage(question)).not.toContain('refused');
    expect(promptPage({ ...question, refused: true })).toContain(
      'The proxy refused that user name and password.',
    );
  });

  it("shows the proxy's realm as text, never markup", () => {
    const page = promptPage({ ...question, realm: '<img src=x onerror=alert(1)>"' });
    expect(page).not.toContain('<img');
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt;&quot;');
    expect(escapeHtml(`&'`)).toBe('&amp;&#39;');
  });

  it('is loaded as a data: URL', () => {
    expect(decodeURIComponent(promptUrl(question).split(',')[1] ?? '')).toBe(promptPage(question));
  });

  it('reads a sign-in, a cancel, and nothing else', () => {
    expect(readAnswer(`${ANSWER_ORIGIN}/sign-in?u=alice&p=s%26cret`)).toEqual({
      username: 'alice',
      password: 's&cret',
    });
    expect(readAnswer(`${ANSWER_ORIGIN}/cancel?u=&p=`)).toBe('cancel');
    expect(readAnswer(`${ANSWER_ORIGIN}/sign-in?u=&p=x`)).toBeNull();
    expect(readAnswer('https://evil.example/sign-in?u=a&p=b')).toBeNull();
    expect(readAnswer('app://renderer/sign-in?u=a&p=b')).toBeNull();
    expect(readAnswer('not a url')).toBeNull();
  });
});
