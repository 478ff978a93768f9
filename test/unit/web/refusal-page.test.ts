import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { refusalPage, wantsPage } from '#web/refusal-page.js';
import { WebRefusal } from '#web/web-errors.js';

const request = (method: string, url: string, accept?: string): IncomingMessage =>
  ({ method, url, headers: accept === undefined ? {} : { accept } }) as IncomingMessage;

describe('refusal page (a person opening the address without the cookie)', () => {
  it('is for a browser page load only; bridge calls keep the JSON body', () => {
    expect(wantsPage(request('GET', '/', 'text/html,application/xhtml+xml'))).toBe(true);
    expect(wantsPage(request('GET', '/api/bridge/getStatus', 'text/html'))).toBe(false);
    expect(wantsPage(request('POST', '/', 'text/html'))).toBe(false);
    expect(wantsPage(request('GET', '/', 'application/json'))).toBe(false);
    expect(wantsPage(request('GET', '/'))).toBe(false);
  });

  it('says what to do, keeps the code and status, and carries no script or link', () => {
    const page = refusalPage(new WebRefusal('UNAUTHORIZED', 'x'));
    expect(page).toContain('Open the address that <code>updater serve</code> printed');
    expect(page).toContain('Code: <code>UNAUTHORIZED</code> (HTTP 401)');
    expect(page).not.toMatch(/<script|<a |href=|style=/i);
  });

  it('escapes a message it has no words for', () => {
    const page = refusalPage(new WebRefusal('NOT_FOUND', '<img src=x onerror=alert(1)>'));
    expect(page).toContain('&#60;img src=x onerror=alert(1)&#62;');
    expect(page).not.toContain('<img');
  });
});
