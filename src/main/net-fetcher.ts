/**
 * The app's one way onto the network: Electron's `net.request` on the default session, so
 * every request (the core's, the activity ranking's, the demo key's) goes through Chromium's
 * network stack with the system proxy settings, PAC scripts and the OS certificate store
 * (docs/DESKTOP.md "Network"), and a proxy that asks for a password is answered through the
 * proxy-login policy (docs/DESKTOP.md "Proxy sign-in"). Not `net.fetch`: it adds no `login`
 * listener, so Electron cancels every proxy challenge of the main process's requests. A thin
 * shell: fetch over ClientRequest is net-request-fetch.ts, the Fetcher port over it
 * src/node/fetch-fetcher.ts.
 */
import { net, type App } from 'electron';
import {
  createNetRequestFetch,
  type AnswerChallenge,
  type NetRequestLike,
} from './net-request-fetch.js';

/** `fetch` over the default session whose proxy challenges go to `answer` (after ready). */
export function proxyAwareNetFetch(
  answer: AnswerChallenge,
): (input: string | URL, init?: RequestInit) => Promise<Response> {
  // ClientRequest's overloaded `on` is the slice NetRequestLike names (Electron's types).
  return createNetRequestFetch(
    (options) => net.request(options) as unknown as NetRequestLike,
    answer,
  );
}

/**
 * `app.on('login')` for web contents: a proxy challenge goes to the same policy; a server's is
 * left to Electron's default, which cancels it (we never answer a server we did not expect).
 */
export function attachAppLogin(app: Pick<App, 'on'>, answer: AnswerChallenge): void {
  app.on('login', (event, _webContents, _details, authInfo, callback) => {
    if (!authInfo.isProxy) return;
    event.preventDefault();
    answer(authInfo).then(
      (credential) =>
        credential === null ? callback() : callback(credential.username, credential.password),
      () => callback(),
    );
  });
}
