import { describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => ({}));

import {
  guarded,
  InvalidIpcArgumentsError,
  isTrustedSender,
  UntrustedSenderError,
  type SenderInfo,
} from '#main/ipc-guard.js';

const WINDOW_ID = 7;

function event(overrides: {
  id?: number;
  url?: string;
  parent?: unknown;
  noFrame?: boolean;
}): SenderInfo {
  return {
    sender: { id: overrides.id ?? WINDOW_ID },
    senderFrame:
      overrides.noFrame === true
        ? null
        : {
            url: overrides.url ?? 'app://renderer/index.html',
            parent: overrides.parent ?? null,
          },
  };
}

describe('IPC sender checks', () => {
  it('accepts the window top frame showing our app://renderer page', () => {
    expect(isTrustedSender(event({}), WINDOW_ID)).toBe(true);
  });

  it('refuses a file:// page (the window never shows one; any local file could be loaded)', () => {
    const url = 'file:///opt/app/resources/app.asar/dist/app/renderer/index.html';
    expect(isTrustedSender(event({ url }), WINDOW_ID)).toBe(false);
  });

  it('refuses another host of the app scheme', () => {
    expect(isTrustedSender(event({ url: 'app://bundle/index.html' }), WINDOW_ID)).toBe(false);
  });

  it('refuses another webContents', () => {
    expect(isTrustedSender(event({ id: 8 }), WINDOW_ID)).toBe(false);
  });

  it('refuses every sender before the window exists', () => {
    expect(isTrustedSender(event({}), null)).toBe(false);
  });

  it('refuses a page navigated to http(s)', () => {
    expect(isTrustedSender(event({ url: 'https://evil.example/' }), WINDOW_ID)).toBe(false);
    expect(isTrustedSender(event({ url: 'http://127.0.0.1:8080/' }), WINDOW_ID)).toBe(false);
  });

  it('refuses an iframe inside the window', () => {
    expect(isTrustedSender(event({ parent: {} }), WINDOW_ID)).toBe(false);
  });

  it('refuses a destroyed frame', () => {
    expect(isTrustedSender(event({ noFrame: true }), WINDOW_ID)).toBe(false);
  });

  it('refuses an unparseable frame URL', () => {
    expect(isTrustedSender(event({ url: 'not a url' }), WINDOW_ID)).toBe(false);
  });

  it('guarded handlers run for the trusted sender and reject others without running', async () => {
    const handler = vi.fn(() => 'status');
    const wrapped = guarded(() => WINDOW_ID, handler);
    await expect(wrapped(event({}))).resolves.toBe('status');
    await expect(wrapped(event({ id: 99 }))).rejects.toBeInstanceOf(UntrustedSenderError);
    await expect(wrapped(event({ url: 'data:text/html,x' }))).rejects.toMatchObject({
      code: 'UNTRUSTED_SENDER',
    });
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('refuses any argument on a channel that takes none, without running the handler', async () => {
    // Every channel of the contract is argument-free: anything sent along is an attack or a bug.
    const handler = vi.fn(() => 'status');
    const wrapped = guarded(() => WINDOW_ID, handler);
    await expect(wrapped(event({}), { path: '/etc/passwd' })).rejects.toBeInstanceOf(
      InvalidIpcArgumentsError,
    );
    await expect(wrapped(event({}), undefined)).rejects.toMatchObject({ code: 'BAD_ARGUMENTS' });
    expect(handler).not.toHaveBeenCalled();
  });
});
