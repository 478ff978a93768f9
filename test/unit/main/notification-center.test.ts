/** Notifications with the app icon whose click opens the window (electron mocked). */
import { beforeEach, describe, expect, it, vi } from 'vitest';

const h = vi.hoisted(() => ({
  supported: true,
  made: [] as {
    options: Record<string, unknown>;
    handlers: Map<string, () => void>;
    shown: boolean;
  }[],
}));

vi.mock('electron', () => ({
  Notification: class {
    static isSupported() {
      return h.supported;
    }
    readonly record;
    constructor(options: Record<string, unknown>) {
      this.record = { options, handlers: new Map<string, () => void>(), shown: false };
      h.made.push(this.record);
    }
    on(name: string, fn: () => void) {
      this.record.handlers.set(name, fn);
    }
    show() {
      this.record.shown = true;
    }
  },
}));

import { createNotificationCenter } from '#main/notification-center.js';

beforeEach(() => {
  h.made.length = 0;
  h.supported = true;
});

describe('notification center', () => {
  it('shows the notice with the app icon', () => {
    const center = createNotificationCenter({ iconPath: '/r/icon.png', open: () => undefined });
    expect(center.show({ title: 'Update installed', body: 'Updated from 1 to 2.' })).toBe(true);
    expect(h.made[0]?.options).toEqual({
      title: 'Update installed',
      body: 'Updated from 1 to 2.',
      icon: '/r/icon.png',
    });
    expect(h.made[0]?.shown).toBe(true);
  });

  it('opens the window when the notification is clicked', () => {
    const open = vi.fn();
    createNotificationCenter({ iconPath: '/i.png', open }).show({ title: 't', body: 'b' });
    expect(open).not.toHaveBeenCalled();
    h.made[0]?.handlers.get('click')?.();
    expect(open).toHaveBeenCalledTimes(1);
  });

  it('shows nothing where the system has no notifications', () => {
    h.supported = false;
    const center = createNotificationCenter({ iconPath: '/i.png', open: () => undefined });
    expect(center.show({ title: 't', body: 'b' })).toBe(false);
    expect(h.made).toHaveLength(0);
  });
});
