/**
 * Asks for a proxy's user name and password in a small window of its own (docs/DESKTOP.md
 * "Proxy sign-in"): the page is proxy-prompt-page.ts (no script, no preload); its form
 * submission is read in `will-navigate` and cancelled. Closing the window is Cancel.
 */
import { BrowserWindow } from 'electron';
import type { Credential, Question } from './proxy-login.js';
import { promptUrl, readAnswer } from './proxy-prompt-page.js';

export function askInPromptWindow(question: Question): Promise<Credential | null> {
  return new Promise((resolve) => {
    const win = new BrowserWindow({
      width: 420,
      height: 330,
      resizable: false,
      minimizable: false,
      maximizable: false,
      alwaysOnTop: true,
      title: 'Proxy sign-in',
      webPreferences: {
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
        javascript: false,
        devTools: false,
        spellcheck: false,
      },
    });
    let answered = false;
    const finish = (answer: Credential | null): void => {
      if (answered) return;
      answered = true;
      resolve(answer);
      if (!win.isDestroyed()) win.destroy();
    };
    win.webContents.on('will-navigate', (event) => {
      event.preventDefault();
      const answer = readAnswer(event.url);
      if (answer === null) return;
      finish(answer === 'cancel' ? null : answer);
    });
    win.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
    win.on('closed', () => finish(null));
    void win.loadURL(promptUrl(question));
  });
}
