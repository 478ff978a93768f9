/**
 * Writes text only when it changed. Live regions (aria-live, role="alert") announce every
 * rewrite, even of identical text, and the window re-renders on every status push.
 */
export function setText(element: HTMLElement, text: string): void {
  if (element.textContent !== text) element.textContent = text;
}
