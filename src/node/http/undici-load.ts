/**
 * Loads undici at the first request of a run (undici-entry.ts says why not at start): in the
 * CLI bundle its own file beside the bundle (scripts/build-cli.mjs), from source the module
 * next to this one. Loaded once; every later call gets the same module.
 */
import type * as Undici from 'undici';

/** What the fetcher uses: the Agent with its `request` API (undici-entry.ts). */
export type UndiciAgent = Pick<typeof Undici, 'Agent'>;

let loading: Promise<UndiciAgent> | undefined;

export function loadUndici(): Promise<UndiciAgent> {
  const module = import.meta.url.endsWith('.mjs') ? './undici.mjs' : './undici-entry.js';
  loading ??= import(module) as Promise<UndiciAgent>;
  return loading;
}
