/**
 * The "Most active this time unit" widget: the top 10 public machines with rank, name, count
 * and a bar proportional to the count. Refreshes every few seconds while the window is
 * visible and pauses while it is hidden (Page Visibility, visibilitychange), so a closed tray
 * window costs the registry nothing. Rows are kept and updated in place (activity-rows.ts), so
 * a keyboard user's focus stays on its machine across refreshes; when the registry cannot be
 * reached the last ranking stays, dimmed, with the time it was computed (docs/DESKTOP.md
 * "Widget").
 */
import type { ActivityResult } from '#preload/ipc-contract.js';
import { wireRowKeys } from './activity-keys.js';
import { sharedPeak, updateRows } from './activity-rows.js';
import { setText } from './dom-text.js';
import { clockTime, formatCompact, windowWords } from './format.js';

export const ACTIVITY_REFRESH_MS = 3_000;
export const ACTIVITY_ROWS = 10;

export interface ActivityElements {
  readonly list: HTMLOListElement;
  readonly state: HTMLElement;
  /** "state changes per machine, last 60 units ≈ 47 s" */
  readonly window: HTMLElement;
  /** "as of 14:03:12" */
  readonly asOf: HTMLElement;
  /** The trend column's heading with the one scale of every sparkline. */
  readonly scale: HTMLElement;
}

export interface ActivityWidgetOptions {
  readonly doc: Document;
  readonly elements: ActivityElements;
  readonly load: () => Promise<ActivityResult>;
  readonly refreshMs?: number;
}

interface RankingView {
  render(result: ActivityResult): void;
  showLoading(): void;
  showStale(kind: 'offline' | 'error', text: string): void;
}

/** Writes results into the widget; remembers the time of the ranking on screen. */
function createRankingView(doc: Document, elements: ActivityElements, locale: string): RankingView {
  /** The time of the ranking on screen ('' when it had none, null before the first one). */
  let shownAsOf: string | null = null;
  const showState = (kind: string, text: string): void => {
    elements.state.dataset['state'] = kind;
    setText(elements.state, text); // aria-live: only real changes are announced
  };
  /** Keeps the rows but marks them as not current: dimmed, and said so in words. */
  const showStale = (kind: 'offline' | 'error', text: string): void => {
    const kept =
      shownAsOf === null
        ? ''
        : shownAsOf === ''
          ? ' Showing the last ranking received.'
          : ` Showing the ranking as of ${shownAsOf}.`;
    showState(kind, `${text}${kept}`);
    elements.list.dataset['stale'] = 'true';
  };
  const render = (result: ActivityResult): void => {
    if (result.state === 'offline') return showStale('offline', `Offline: ${result.message}`);
    if (result.state === 'error') {
      return showStale('error', `The ranking could not be loaded (${result.code}).`);
    }
    shownAsOf = clockTime(result.generatedAt, locale);
    setText(elements.window, windowWords(result.windowUnits, result.unitMs));
    setText(elements.asOf, shownAsOf === '' ? '' : `as of ${shownAsOf}`);
    elements.list.dataset['stale'] = 'false';
    const shown = result.machines.slice(0, ACTIVITY_ROWS);
    showState(
      shown.length === 0 ? 'empty' : 'ok',
      shown.length === 0 ? 'No public machine has been active in this window yet.' : '',
    );
    updateRows(doc, elements.list, shown, locale);
    const peak = sharedPeak(shown);
    elements.scale.hidden = peak === 0;
    setText(
      elements.scale,
      `Trends share one scale: 0 to ${formatCompact(peak, locale)} per bucket`,
    );
  };
  return {
    render,
    showStale,
    showLoading: () => {
      if (shownAsOf === null) showState('loading', 'Loading the ranking…');
    },
  };
}

/** Starts the widget; returns a stop function. */
export function startActivityWidget(options: ActivityWidgetOptions): () => void {
  const { doc, elements } = options;
  const refreshMs = options.refreshMs ?? ACTIVITY_REFRESH_MS;
  // Numbers and times in the system's language (the words are English).
  const view = createRankingView(doc, elements, doc.defaultView?.navigator.language ?? 'en');
  wireRowKeys(doc, elements.list);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let loading = false;
  let stopped = false;

  const tick = async (): Promise<void> => {
    if (stopped || loading || doc.visibilityState === 'hidden') return;
    loading = true;
    view.showLoading();
    try {
      view.render(await options.load());
    } catch {
      // The bridge itself failed (main process gone): say so, keep the old rows.
      view.showStale('error', 'The ranking could not be loaded (BRIDGE).');
    } finally {
      loading = false;
      schedule();
    }
  };
  const schedule = (): void => {
    clearTimeout(timer);
    if (stopped || doc.visibilityState === 'hidden') return;
    timer = setTimeout(() => void tick(), refreshMs);
  };
  const onVisibility = (): void => {
    if (doc.visibilityState === 'hidden') clearTimeout(timer);
    else void tick(); // Fresh data as soon as the window shows again.
  };

  doc.addEventListener('visibilitychange', onVisibility);
  void tick();
  return () => {
    stopped = true;
    clearTimeout(timer);
    doc.removeEventListener('visibilitychange', onVisibility);
  };
}
