/**
 * The app's one way onto the network: Electron's `net.fetch` of the default session, so every
 * request (the core's, the activity ranking's, the demo key's) goes through Chromium's network
 * stack with the system proxy settings, PAC scripts, proxy authentication and the OS
 * certificate store (docs/DESKTOP.md "Network"). A thin shell: the Fetcher port over it is the
 * Electron-free src/node/http/fetch-fetcher.ts, handed this function by open-updater.ts.
 */
import { net } from 'electron';

/** `fetch` over the default session (call after app `ready`). */
export function netFetch(input: string | URL, init?: RequestInit): Promise<Response> {
  return net.fetch(String(input), init);
}
