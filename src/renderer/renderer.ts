/**
 * The window's entry point: wires the status card and the activity widget to the bridge.
 * Everything reaches the main process through `window.updater` (src/preload/index.ts).
 */
import type { AppStatus, BridgeApi } from '#preload/ipc-contract.js';
import { startActivityWidget, type ActivityElements } from './activity-widget.js';
import { getApi } from './bridge.js';
import { findConfirmElements } from './confirm-dialog.js';
import { wireOffer, type OfferPanel } from './offer-view.js';
import { wireSettings } from './settings-view.js';
import { createResultLine, wireStatusActions } from './status-actions.js';
import {
  findStatusElements,
  isUnavailable,
  renderStatus,
  setBusy,
  withBridgeError,
} from './status-view.js';

/** The scheduler re-plans after automatic runs without an event of its own: re-read at this pace. */
const STATUS_REFRESH_MS = 15_000;
/** Relative times and the next check's countdown are redrawn every second (no bridge call). */
const CLOCK_TICK_MS = 1_000;

/** Numbers, dates and times follow the system's language (the text itself is English). */
function systemLocale(): string {
  return navigator.languages[0] ?? navigator.language;
}

function wireStatus(api: BridgeApi): void {
  const el = findStatusElements(document);
  const result = createResultLine(document.getElementById('action-result') as HTMLElement);
  const locale = systemLocale();
  let current: AppStatus | null = null;
  let offer: OfferPanel | null = null;
  const show = (status: AppStatus): void => {
    current = status;
    renderStatus(el, status, Date.now(), locale);
    offer?.render(status);
    result.render(status);
  };
  // The bridge itself failed (main process gone or refusing): say so with the BRIDGE code and
  // leave the button usable, rather than an unhandled rejection and a card stuck as it was.
  const bridgeFailed = (): void => show(withBridgeError(current));
  const refresh = (): Promise<void> => api.getStatus().then(show, bridgeFailed);

  offer = wireOffer(api, document, { focusHome: () => el.checkNow.focus(), result, refresh });
  api.onStatus(show);
  void refresh();
  setInterval(() => {
    if (document.visibilityState === 'visible' && current !== null) show(current);
  }, CLOCK_TICK_MS);
  setInterval(() => {
    if (document.visibilityState === 'visible') void refresh();
  }, STATUS_REFRESH_MS);

  const check = (button: HTMLButtonElement): void => {
    if (isUnavailable(button)) return;
    // The button keeps the focus while the run goes on; the status re-enables it.
    setBusy(button, true);
    void api.checkNow().then(refresh, bridgeFailed);
  };
  el.checkNow.addEventListener('click', () => check(el.checkNow));
  el.retry.addEventListener('click', () => {
    // Retry hides with the error box: focus moves first, so it never falls to <body>.
    el.checkNow.focus();
    check(el.retry);
  });
  wireStatusActions(
    api,
    el,
    { openLog: document.getElementById('open-log') as HTMLButtonElement },
    { refresh, current: () => current, confirm: findConfirmElements(document), result },
  );
}

function main(): void {
  const api = getApi();
  wireStatus(api);
  const activity: ActivityElements = {
    list: document.getElementById('activity-list') as HTMLOListElement,
    state: document.getElementById('activity-state') as HTMLElement,
    window: document.getElementById('activity-window') as HTMLElement,
    asOf: document.getElementById('activity-as-of') as HTMLElement,
    scale: document.getElementById('activity-scale') as HTMLElement,
  };
  startActivityWidget({ doc: document, elements: activity, load: () => api.getActivity() });

  // The settings screen replaces both cards while open (docs/DESKTOP.md "Settings").
  const cards = Array.from(document.querySelectorAll<HTMLElement>('main > .card:not(#settings)'));
  const settings = wireSettings(api, document, {
    others: cards,
    opener: document.getElementById('open-settings') as HTMLButtonElement,
  });
  // The tray's "Settings…" opens the window on its settings.
  api.onSection((section) => {
    if (section === 'settings') settings.open();
  });
}

main();
