/**
 * Native notifications that act (docs/DESKTOP.md "Notifications"): each carries the app icon
 * and a click opens the window, where the status shows what the notice was about. The words
 * come from notifications.ts and first-launch-notice.ts; this is the thin Electron part.
 */
import { Notification } from 'electron';
import type { NoticeText } from './notice-text.js';

export interface NotificationCenterDeps {
  /** The app icon (resources/icon.png); Windows and Linux show it beside the text. */
  readonly iconPath: string;
  /** Opens the window. */
  readonly open: () => void;
}

export interface NotificationCenter {
  /** Shows a notice; false where the system has no notifications. */
  show(notice: NoticeText): boolean;
}

/** Notifications kept alive at most; older ones can no longer be clicked anyway. */
export const MAX_LIVE_NOTIFICATIONS = 8;

export function createNotificationCenter(deps: NotificationCenterDeps): NotificationCenter {
  // Electron's Notification docs: an object that is garbage-collected loses its click
  // handler, so the app keeps a reference until the notice is closed or clicked.
  const live = new Set<Notification>();
  return {
    show(notice) {
      if (!Notification.isSupported()) return false;
      const n = new Notification({ title: notice.title, body: notice.body, icon: deps.iconPath });
      const drop = (): void => {
        live.delete(n);
      };
      n.on('click', () => {
        drop();
        deps.open();
      });
      n.on('close', drop);
      if (live.size >= MAX_LIVE_NOTIFICATIONS) {
        const oldest = live.values().next().value;
        if (oldest !== undefined) live.delete(oldest);
      }
      live.add(n);
      n.show();
      return true;
    },
  };
}
