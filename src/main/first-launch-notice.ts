/**
 * The one notification of the first launch: where the app lives now that its window may be
 * closed (docs/DESKTOP.md "Launch"). Told once per user: a marker file in userData records
 * it. Electron-free; the file system is injected.
 */
import type { NoticeText } from './notice-text.js';

export const NOTICE_MARKER_FILE = 'first-launch-notice.done';

/** Where to find the app again, in this desktop's words. */
export function firstLaunchNotice(platform: NodeJS.Platform, trayAvailable: boolean): NoticeText {
  const title = 'Verified Updater keeps running';
  if (!trayAvailable) {
    return {
      title,
      body: 'This desktop has no tray: closing the window minimises it, and checks go on. Start Verified Updater again from your applications to bring it back.',
    };
  }
  if (platform === 'darwin') {
    return { title, body: 'It lives in the menu bar, at the top right of the screen.' };
  }
  if (platform === 'win32') {
    return {
      title,
      body: 'It lives in the notification area. If you do not see its icon, open the ^ arrow on the taskbar.',
    };
  }
  return { title, body: 'It lives in the tray (the status icons of your panel).' };
}

export interface NoticeMarker {
  readonly exists: () => Promise<boolean>;
  readonly write: () => Promise<void>;
}

/**
 * Shows the notice unless it was shown before, then records it. Returns whether it showed.
 * The marker is written after the show: a crash in between tells it twice rather than never.
 */
export async function tellOnce(marker: NoticeMarker, show: () => void): Promise<boolean> {
  if (await marker.exists()) return false;
  show();
  await marker.write();
  return true;
}
