/**
 * The offer of a new version under the update policies "ask" and "notify" (docs/DESKTOP.md
 * "Update policy"): its version, its size to download and its signed release notes, with
 * Install now, Later and Skip this version. The notes are shown as text only
 * (release-notes.ts). Each button's panel hides once it acted, so focus moves to Check now
 * first and never falls to <body>.
 */
import type { ActionResult, AppStatus, BridgeApi, OfferView } from '#preload/ipc-contract.js';
import { setText } from './dom-text.js';
import { formatBytes } from './format.js';
import { renderNotes } from './release-notes.js';
import type { ResultLine } from './status-actions.js';

interface OfferElements {
  readonly panel: HTMLElement;
  readonly title: HTMLElement;
  readonly notes: HTMLElement;
  readonly install: HTMLButtonElement;
  readonly later: HTMLButtonElement;
  readonly skip: HTMLButtonElement;
}

function find(doc: Document): OfferElements {
  const get = <T extends HTMLElement>(id: string): T => {
    const element = doc.getElementById(id);
    if (element === null) throw new Error(`missing #${id}`);
    return element as T;
  };
  return {
    panel: get('offer'),
    title: get('offer-title'),
    notes: get('offer-notes'),
    install: get<HTMLButtonElement>('install-now'),
    later: get<HTMLButtonElement>('later'),
    skip: get<HTMLButtonElement>('skip-version'),
  };
}

/** "Version 2.0.0 is ready to install: 2.5 MB to download." */
export function offerTitle(offer: OfferView): string {
  const size =
    offer.downloadBytes === 0
      ? 'nothing to download'
      : `${formatBytes(offer.downloadBytes)} to download`;
  return `Version ${offer.version} is verified and ready to install: ${size}.`;
}

/** Shows `offer` in the panel: its title and its notes as text only. */
function fill(doc: Document, el: OfferElements, offer: OfferView): void {
  setText(el.title, offerTitle(offer));
  // Built by `doc` itself, so they are its elements (typed narrowly for the tests' fake).
  el.notes.replaceChildren(...(renderNotes(doc, offer.notes ?? '') as unknown as Node[]));
  el.notes.hidden = offer.notes === null || offer.notes.trim() === '';
  el.panel.hidden = false;
}

export interface OfferPanel {
  render(status: AppStatus): void;
}

/**
 * Wires the panel. `focusHome` takes focus before the panel hides; `result` shows what each
 * answer did; `refresh` re-reads the status.
 */
export function wireOffer(
  api: BridgeApi,
  doc: Document,
  options: {
    readonly focusHome: () => void;
    readonly result: ResultLine;
    readonly refresh: () => Promise<void>;
  },
): OfferPanel {
  const el = find(doc);
  let shownVersion: string | null = null;
  /** A version put off with Later stays hidden until the next check offers it again. */
  let later: string | null = null;

  const hide = (): void => {
    if (el.panel.contains(doc.activeElement)) options.focusHome();
    el.panel.hidden = true;
  };
  const answer =
    (state: AppStatus['state'] | null) =>
    (result: ActionResult): void => {
      options.result.answer(result, state);
      void options.refresh();
    };

  el.install.addEventListener('click', () => {
    hide();
    void api.installNow().then(answer(null), () => options.refresh());
  });
  el.skip.addEventListener('click', () => {
    const version = shownVersion;
    if (version === null) return;
    hide();
    void api.skipVersion(version).then(answer('up-to-date'), () => options.refresh());
  });
  el.later.addEventListener('click', () => {
    later = shownVersion;
    hide();
    options.result.answer(
      { ok: true, words: `${later ?? 'It'} will be offered again at the next check.` },
      'available',
    );
  });

  return {
    render(status) {
      const offer = status.state === 'available' ? status.offer : null;
      if (status.phase === 'checking') later = null;
      if (offer === null || offer.version === later) {
        if (!el.panel.hidden) hide();
        shownVersion = null;
        return;
      }
      if (offer.version === shownVersion && !el.panel.hidden) return;
      shownVersion = offer.version;
      fill(doc, el, offer);
    },
  };
}
