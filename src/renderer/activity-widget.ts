/**
 * The "Most active this time unit" widget: the top 10 public machines with rank, name, count
 * and a bar proportional to the count. Refreshes every few seconds while the window is
 * visible and pauses while it is hidden (Page Visibility, visibilitychange), so a closed tray
 * window costs the registry nothing.
 */
import type { ActiveMachine } from '../protocol/activity.js';
import type { ActivityResult } from '../preload/ipc-contract.js';
import { barPercent } from './format.js';
import { setText } from './dom-text.js';

export const ACTIVITY_REFRESH_MS = 3_000;
export const ACTIVITY_ROWS = 10;

export interface ActivityElements {
  readonly list: HTMLOListElement;
  readonly state: HTMLElement;
  readonly updated: HTMLElement;
}

export interface ActivityWidgetOptions {
  readonly doc: Document;
  readonly elements: ActivityElements;
  readonly load: () => Promise<ActivityResult>;
  readonly refreshMs?: number;
}

/** Starts the widget; returns a stop function. */
export function startActivityWidget(options: ActivityWidgetOptions): () => void {
  const { doc, elements } = options;
  const refreshMs = options.refreshMs ?? ACTIVITY_REFRESH_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let loading = false;
  let stopped = false;
  let shownOnce = false;

  const showState = (kind: string, text: string): void => {
    elements.state.dataset['state'] = kind;
    setText(elements.state, text); // aria-live: only real changes are announced
  };

  const render = (result: ActivityResult): void => {
    if (result.state === 'offline') {
      const kept = shownOnce ? ' Showing the last ranking received.' : '';
      showState('offline', `Offline: ${result.message}${kept}`);
      return;
    }
    if (result.state === 'error') {
      showState('error', `The ranking could not be loaded (${result.code}).`);
      return;
    }
    shownOnce = true;
    elements.updated.textContent = `last ${result.windowUnits} units`;
    if (result.machines.length === 0) {
      showState('empty', 'No public machine has been active in this window yet.');
      elements.list.replaceChildren();
      return;
    }
    showState('ok', '');
    renderRows(doc, elements.list, result.machines.slice(0, ACTIVITY_ROWS));
  };

  const tick = async (): Promise<void> => {
    if (stopped || loading || doc.visibilityState === 'hidden') return;
    loading = true;
    if (!shownOnce) showState('loading', 'Loading the ranking…');
    try {
      render(await options.load());
    } catch {
      // The bridge itself failed (main process gone): say so, keep the old rows.
      showState('error', 'The ranking could not be loaded (BRIDGE).');
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

function renderRows(
  doc: Document,
  list: HTMLOListElement,
  machines: readonly ActiveMachine[],
): void {
  const max = machines.reduce((m, machine) => Math.max(m, machine.transitions), 0);
  const rows = machines.map((machine) => {
    const li = doc.createElement('li');
    li.tabIndex = 0; // Keyboard users can step through the ranking and hear each row.
    li.dataset['machineId'] = machine.id;
    const noun = machine.transitions === 1 ? 'transition' : 'transitions';
    li.setAttribute(
      'aria-label',
      `Rank ${machine.rank}: ${machine.name}, ${machine.transitions} ${noun}`,
    );
    const rank = span(doc, 'rank', String(machine.rank));
    const name = span(doc, 'name', machine.name);
    name.title = machine.name;
    const count = span(doc, 'count', String(machine.transitions));
    const bar = doc.createElement('div');
    bar.className = 'bar';
    bar.setAttribute('aria-hidden', 'true');
    const fill = doc.createElement('div');
    fill.className = 'bar-fill';
    // CSSOM, not a style attribute: allowed under style-src 'self' (CSP3 §6.7.3).
    fill.style.width = `${barPercent(machine.transitions, max)}%`;
    bar.append(fill);
    li.append(rank, name, count, bar);
    return li;
  });
  list.replaceChildren(...rows);
}

function span(doc: Document, className: string, text: string): HTMLSpanElement {
  const element = doc.createElement('span');
  element.className = className;
  element.textContent = text;
  return element;
}
