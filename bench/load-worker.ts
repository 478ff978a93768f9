/**
 * autocannon in a worker thread, so the load generator has its own event loop and does not
 * share the servers' (autocannon ships no types; the worker is plain CommonJS).
 */
import { Worker } from 'node:worker_threads';

export interface LoadResult {
  /** Completed requests per second over the run. */
  average: number;
  non2xx: number;
  errors: number;
}

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const autocannon = require('autocannon');
autocannon(workerData).then(
  // Inside a worker autocannon returns raw histograms; completed requests / seconds is the rate.
  (r) => parentPort.postMessage({ average: r.totalCompletedRequests / r.duration, non2xx: r.non2xx, errors: r.errors }),
  () => parentPort.postMessage({ average: 0, non2xx: 0, errors: -1 }),
);
`;

/** Loads `url` for `seconds` with 10 connections. */
export function loadTest(
  url: string,
  seconds: number,
  headers: Record<string, string> = {},
): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, {
      eval: true,
      workerData: { url, connections: 10, duration: seconds, pipelining: 1, headers },
    });
    worker.once('message', (m: LoadResult) => {
      resolve(m);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}
