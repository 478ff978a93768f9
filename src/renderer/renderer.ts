/**
 * The window's entry point: wires the status card and the activity widget to the bridge.
 * Everything reaches the main process through `window.updater` (src/preload/index.ts).
 */
import type { AppStatus } from '#preload/ipc-contract.js';
import { startActivityWidget, type ActivityElements } from './activity-widget.js';
import { getApi } from './bridge.js';
import { wireSettings } from './settings-view.js';
import { wireStatusActions } from './status-actions.js';
import { findStatusElements, renderStatus, withBridgeError } from './status-view.js';

/**
 * Relative times ("2 min ago") and the next planned check are refreshed at this pace (the
 * scheduler re-plans after automatic runs without an event of its own).
 */
const CLOCK_REFRESH_MS = 15_000;

function main(): void {
  const api = getApi();
  const statusElements = findStatusElements(document);
  let current: AppStatus | null = null;
  const show = (status: AppStatus): void => {
    current = status;
    renderStatus(statusElements, status, Date.now(), document.documentElement.lang || 'en');
  };
  // The bridge itself failed (main process gone or refusing): say so with the BRIDGE code and
  // leave the button usable, rather than an unhandled rejection and a card stuck as it was.
  const bridgeFailed = (): void => show(withBridgeError(current));
  const refresh = (): Promise<void> => api.getStatus().then(show, bridgeFailed);

  api.onStatus(show);
  void refresh();
  setInterval(() => {
    if (document.visibilityState !== 'visible') return;
    if (current !== null) show(current);
    void refresh();
  }, CLOCK_REFRESH_MS);

  statusElements.checkNow.addEventListener('click', () => {
    statusElements.checkNow.disabled = true;
    void api.checkNow().then(refresh, bridgeFailed);
  });
  wireStatusActions(
    api,
    statusElements,
    {
      openLog: document.getElementById('open-log') as HTMLButtonElement,
      result: document.getElementById('action-result') as HTMLElement,
    },
    { confirm: (question) => window.confirm(question), refresh },
  );

  const activity: ActivityElements = {
    list: document.getElementById('activity-list') as HTMLOListElement,
    state: document.getElementById('activity-state') as HTMLElement,
    window: document.getElementById('activity-window') as HTMLElement,
    asOf: document.getElementById('activity-as-of') as HTMLElement,
  };
  startActivityWidget({ doc: document, elements: activity, load: () => api.getActivity() });

  // The settings screen replaces both cards while open (docs/DESKTOP.md "Settings").
  const cards = Array.from(document.querySelectorAll<HTMLElement>('main > .card:not(#settings)'));
  wireSettings(api, document, {
    others: cards,
    opener: document.getElementById('open-settings') as HTMLButtonElement,
  });
}

main();
