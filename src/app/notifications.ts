/**
 * Which core events deserve a native notification, and their words: an update applied, or
 * refused (docs/DESKTOP.md "Updates"). A refusal is told once: the scheduler retries a failed
 * check (+30 s, +60 s, ... then hourly) and each retry meets the same refused release, so the
 * notifier remembers what it told until a run succeeds. The words are the window's own
 * (refusal-words.ts), never the core's raw message.
 */
import type { UpdateEvent } from '#core/events.js';
import { describeError } from './status/refusal-words.js';

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
  'HTTP_STATUS',
]);

/** Refusals remembered at most (bounded memory: a hostile registry could vary its answers). */
export const MAX_REMEMBERED_REFUSALS = 64;

export interface Notifier {
  /**
   * The notification for an event, or null. `targetVersion` is the version the run was
   * pulling, when known: a refusal is told once per version and code (per code and message
   * when no version was reached, such as a bad signature).
   */
  noticeFor(event: UpdateEvent, targetVersion: string | null): Notice | null;
}

export function createNotifier(): Notifier {
  const told = new Set<string>();
  return {
    noticeFor(event, targetVersion) {
      if (event.type === 'applied') {
        told.clear(); // a success: a later refusal is news again
        return {
          title: 'Update installed',
          body:
            event.previousVersion === null
              ? `Version ${event.version} is installed.`
              : `Updated from ${event.previousVersion} to ${event.version}.`,
        };
      }
      if (event.type === 'up-to-date') {
        told.clear();
        return null;
      }
      if (event.type !== 'error' || QUIET_CODES.has(event.code)) return null;
      const key = `${event.code}\n${targetVersion ?? event.message}`;
      if (told.has(key)) return null;
      if (told.size >= MAX_REMEMBERED_REFUSALS) told.clear();
      told.add(key);
      const view = describeError(event.code, event.message);
      const title =
        view.kind === 'security'
          ? targetVersion === null
            ? 'Update refused for your safety'
            : `Update ${targetVersion} refused for your safety`
          : 'Update not installed';
      return { title, body: `${view.words} ${view.advice} (${view.code})` };
    },
  };
}
