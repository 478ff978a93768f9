/**
 * Which core events deserve a native notification, and their words. Only outcomes the user
 * should know about without opening the window: an update applied, or refused.
 */
import type { UpdateEvent } from '../core/events.js';

export interface Notice {
  readonly title: string;
  readonly body: string;
}

/** Codes that are routine weather, not news: the next scheduled check retries them. */
const QUIET_CODES: ReadonlySet<string> = new Set([
  'NETWORK',
  'STALLED',
  'RATE_LIMITED',
  'ABORTED',
  'LOCKED',
]);

/** The notification for an event, or null when none should be shown. */
export function noticeFor(event: UpdateEvent): Notice | null {
  if (event.type === 'applied') {
    return {
      title: 'Update installed',
      body:
        event.previousVersion === null
          ? `Version ${event.version} is installed.`
          : `Updated from ${event.previousVersion} to ${event.version}.`,
    };
  }
  if (event.type === 'error' && !QUIET_CODES.has(event.code)) {
    return { title: 'Update refused', body: `${event.message} (${event.code})` };
  }
  return null;
}
