/**
 * The one hash-and-append worker thread of the process (hash-append-worker.ts), shared by
 * every partial file being pulled at once: `limits.parallel` large artifacts cost one thread
 * and one isolate, not one each (peak RSS stays flat, docs/UPDATER.md §3, Throughput of one
 * large artifact). Started by the first `acquire`, terminated when the last user releases it:
 * no idle thread outlives the pulls. Requests are answered in the order they were sent.
 */
import type { Worker } from 'node:worker_threads';
import { UpdateError } from '#core/errors.js';
import { WORKER_SOURCE, type WorkerReply, type WorkerRequest } from './hash-append-worker.js';
import { workerThreads } from '../lazy-builtin.js';

export type OkReply = WorkerReply & { ok: true };

interface Waiter {
  resolve(reply: OkReply): void;
  reject(error: Error): void;
}

class WorkerHost {
  private readonly worker: Worker;
  private readonly waiting: Waiter[] = [];
  /** The worker is gone (all users left, or it crashed): every request fails with this. */
  failure: UpdateError | undefined;
  users = 0;

  constructor() {
    // Loaded here, by the first pull that needs a worker (lazy-builtin.ts).
    this.worker = new (workerThreads().Worker)(WORKER_SOURCE, { eval: true });
    this.worker.unref();
    this.worker.on('message', (reply: WorkerReply) => this.settle(reply));
    this.worker.on('error', (error: Error) => {
      this.fail(new UpdateError('IO', `hash worker failed: ${error.message}`, { cause: error }));
    });
    this.worker.on('exit', () => this.fail(new UpdateError('IO', 'hash worker stopped')));
  }

  request(message: WorkerRequest): Promise<OkReply> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      // Referenced only while an answer is awaited: an idle worker never holds the process.
      if (this.waiting.length === 0) this.worker.ref();
      this.waiting.push({ resolve, reject });
      this.worker.postMessage(message);
    });
  }

  async stop(): Promise<void> {
    this.fail(new UpdateError('IO', 'hash worker closed'));
    await this.worker.terminate();
  }

  private settle(reply: WorkerReply): void {
    const waiter = this.waiting.shift();
    if (this.waiting.length === 0) this.worker.unref();
    if (waiter === undefined) return;
    if (reply.ok) {
      waiter.resolve(reply);
      return;
    }
    const details: Record<string, string> = {};
    if (reply.errno !== undefined) details['errno'] = reply.errno;
    if (reply.syscall !== undefined) details['syscall'] = reply.syscall;
    waiter.reject(new UpdateError('IO', `partial file: ${reply.message}`, { details }));
  }

  private fail(error: UpdateError): void {
    this.failure ??= error;
    this.worker.unref();
    for (const waiter of this.waiting.splice(0)) waiter.reject(this.failure);
  }
}

let current: WorkerHost | undefined;
let nextId = 1;

/** A user's handle on the shared worker: its stream id, its requests, its release. */
export interface WorkerLease {
  readonly id: number;
  request(message: WorkerRequest): Promise<OkReply>;
  /** Idempotent; the last release stops the thread. */
  release(): Promise<void>;
}

/** Joins (or starts) the shared worker. */
export function acquireHashWorker(): WorkerLease {
  if (current === undefined || current.failure !== undefined) current = new WorkerHost();
  const host = current;
  host.users++;
  let released = false;
  return {
    id: nextId++,
    request: (message) => host.request(message),
    async release() {
      if (released) return;
      released = true;
      host.users--;
      if (host.users > 0) return;
      if (current === host) current = undefined;
      await host.stop();
    },
  };
}

/** Whether a worker thread is running now (tests: none may outlive its partials). */
export function hashWorkerRunning(): boolean {
  return current !== undefined;
}
