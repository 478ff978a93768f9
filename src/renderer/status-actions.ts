/**
 * The status card's buttons: Cancel, Pause/Resume, Roll back (after a confirmation), Verify
 * files and Open log (docs/DESKTOP.md "Updates"). Each answer is shown in the card's result
 * line in plain words; a failure shows its words, its advice and its code.
 */
import type { ActionResult, BridgeApi } from '#preload/ipc-contract.js';
import { setText } from './dom-text.js';
import { BRIDGE_ERROR, type StatusElements } from './status-view.js';

export interface ActionElements {
  readonly openLog: HTMLButtonElement;
  readonly result: HTMLElement;
}

/** Writes an action's answer into the result line. */
export function showResult(result: HTMLElement, answer: ActionResult): void {
  result.hidden = false;
  result.dataset['ok'] = String(answer.ok);
  setText(
    result,
    answer.ok
      ? answer.words
      : `${answer.error.words} ${answer.error.advice} (${answer.error.code})`,
  );
}

export function wireStatusActions(
  api: BridgeApi,
  status: StatusElements,
  actions: ActionElements,
  options: { confirm: (question: string) => boolean; refresh: () => Promise<void> },
): void {
  const run = (button: HTMLButtonElement, call: () => Promise<ActionResult>): void => {
    button.disabled = true;
    button.setAttribute('aria-busy', 'true');
    void call()
      .then(
        (answer) => showResult(actions.result, answer),
        () => showResult(actions.result, { ok: false, error: BRIDGE_ERROR }),
      )
      .finally(() => {
        button.removeAttribute('aria-busy');
        button.disabled = false;
        void options.refresh(); // the status decides which buttons stay enabled
      });
  };

  status.cancel.addEventListener('click', () => run(status.cancel, () => api.cancel()));
  status.pause.addEventListener('click', () => {
    const paused = status.pause.getAttribute('aria-pressed') === 'true';
    void api.setPaused(!paused).then(options.refresh, options.refresh);
  });
  status.rollBack.addEventListener('click', () => {
    const version = status.installedVersion.textContent ?? '';
    if (!options.confirm(`Roll back from ${version} to the previous version?`)) return;
    run(status.rollBack, () => api.rollBack());
  });
  status.verify.addEventListener('click', () => run(status.verify, () => api.verify()));
  actions.openLog.addEventListener('click', () => run(actions.openLog, () => api.openLog()));
}
