/**
 * The status card's buttons: Check now, Retry now, Cancel, Pause/Resume, Roll back (after an
 * in-window confirmation naming both versions), Verify files and Open log (docs/DESKTOP.md
 * "Updates"). A busy button keeps the focus (aria-disabled); each answer is shown in the
 * card's result line, which the next state clears.
 */
import type { ActionResult, AppStatus, BridgeApi } from '#preload/ipc-contract.js';
import { askConfirm, type ConfirmElements } from './confirm-dialog.js';
import { setText } from './dom-text.js';
import { BRIDGE_ERROR, isUnavailable, setBusy, type StatusElements } from './status-view.js';

export interface ActionElements {
  readonly openLog: HTMLButtonElement;
}

/** The result line: an action's answer until the state changes, else the state's notice. */
export interface ResultLine {
  answer(result: ActionResult, state: AppStatus['state'] | null): void;
  render(status: AppStatus): void;
}

export function createResultLine(element: HTMLElement): ResultLine {
  let shown: { result: ActionResult; state: AppStatus['state'] | null } | null = null;
  const write = (ok: boolean, text: string): void => {
    element.hidden = text === '';
    element.dataset['ok'] = String(ok);
    setText(element, text);
  };
  const words = (result: ActionResult): string =>
    result.ok
      ? result.words
      : `${result.error.words} ${result.error.advice} (${result.error.code})`;
  return {
    answer(result, state) {
      shown = { result, state };
      write(result.ok, words(result));
    },
    render(status) {
      if (shown !== null && shown.state !== status.state) shown = null;
      if (shown !== null) return;
      write(true, status.notice?.words ?? '');
    },
  };
}

/** "Roll back from 3.0.0 to 2.0.0?" when the window knows the version before. */
export function rollBackQuestion(status: AppStatus | null): {
  title: string;
  text: string;
  yes: string;
} {
  const from = status?.installedVersion ?? 'the installed version';
  const last = status?.lastUpdate ?? null;
  const to =
    last !== null &&
    last.kind !== 'rollback' &&
    last.toVersion === from &&
    last.fromVersion !== null
      ? last.fromVersion
      : 'the version installed before it';
  return {
    title: `Roll back from ${from} to ${to}?`,
    text: `${from} is removed from this computer and ${to} is restored. ${from} is then skipped until a newer version appears.`,
    yes: 'Roll back',
  };
}

export interface ActionOptions {
  readonly refresh: () => Promise<void>;
  readonly current: () => AppStatus | null;
  readonly confirm: ConfirmElements;
  readonly result: ResultLine;
}

export function wireStatusActions(
  api: BridgeApi,
  status: StatusElements,
  actions: ActionElements,
  options: ActionOptions,
): void {
  const run = (button: HTMLButtonElement, call: () => Promise<ActionResult>): void => {
    if (isUnavailable(button)) return;
    setBusy(button, true);
    button.setAttribute('aria-busy', 'true');
    void call()
      .then(
        (answer) => options.result.answer(answer, options.current()?.state ?? null),
        () => options.result.answer({ ok: false, error: BRIDGE_ERROR }, null),
      )
      .finally(() => {
        button.removeAttribute('aria-busy');
        setBusy(button, false);
        void options.refresh(); // the status decides which buttons stay available
      });
  };

  status.cancel.addEventListener('click', () => run(status.cancel, () => api.cancel()));
  status.pause.addEventListener('click', () => {
    const paused = status.pause.getAttribute('aria-pressed') === 'true';
    void api.setPaused(!paused).then(options.refresh, options.refresh);
  });
  status.rollBack.addEventListener('click', () => {
    if (isUnavailable(status.rollBack)) return;
    void askConfirm(options.confirm, rollBackQuestion(options.current())).then((yes) => {
      if (yes) run(status.rollBack, () => api.rollBack());
    });
  });
  status.verify.addEventListener('click', () => run(status.verify, () => api.verify()));
  actions.openLog.addEventListener('click', () => run(actions.openLog, () => api.openLog()));
}
