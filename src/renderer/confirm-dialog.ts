/**
 * Confirmations inside the window (docs/DESKTOP.md "Updates"): a modal <dialog>, never
 * window.confirm, which in the frameless, always-on-top tray window that hides on blur is lost
 * or hides the window. showModal() makes the rest of the page inert, so focus stays inside;
 * Esc cancels; focus returns to the control that asked.
 */
import { setText } from './dom-text.js';

export interface ConfirmElements {
  readonly dialog: HTMLDialogElement;
  readonly title: HTMLElement;
  readonly text: HTMLElement;
  readonly yes: HTMLButtonElement;
  readonly no: HTMLButtonElement;
}

export interface Question {
  readonly title: string;
  readonly text: string;
  readonly yes: string;
}

export function findConfirmElements(doc: Document): ConfirmElements {
  const get = <T extends HTMLElement>(id: string): T => {
    const element = doc.getElementById(id);
    if (element === null) throw new Error(`missing #${id}`);
    return element as T;
  };
  return {
    dialog: get<HTMLDialogElement>('confirm'),
    title: get('confirm-title'),
    text: get('confirm-text'),
    yes: get<HTMLButtonElement>('confirm-yes'),
    no: get<HTMLButtonElement>('confirm-no'),
  };
}

/** Asks; resolves true on the yes button, false on the other, on Esc or on a second ask. */
export function askConfirm(el: ConfirmElements, question: Question): Promise<boolean> {
  const opener = el.dialog.ownerDocument.activeElement;
  setText(el.title, question.title);
  setText(el.text, question.text);
  setText(el.yes, question.yes);
  return new Promise<boolean>((resolve) => {
    const finish = (answer: boolean): void => {
      el.yes.removeEventListener('click', onYes);
      el.no.removeEventListener('click', onNo);
      el.dialog.removeEventListener('close', onClose);
      if (el.dialog.open) el.dialog.close();
      if (opener instanceof HTMLElement) opener.focus();
      resolve(answer);
    };
    const onYes = (): void => finish(true);
    const onNo = (): void => finish(false);
    // Esc closes a modal dialog by itself ('cancel', then 'close').
    const onClose = (): void => finish(false);
    el.yes.addEventListener('click', onYes);
    el.no.addEventListener('click', onNo);
    el.dialog.addEventListener('close', onClose);
    el.dialog.showModal();
    // The safe answer has the focus: Enter does not roll back by accident.
    el.no.focus();
  });
}
