/**
 * One-shot fault injection (dev API, docs/PROTOCOL.md §6). A fault is armed for one route and
 * fires on the next matching request only. `route` is "METHOD /pattern" or "/pattern" (any
 * method), where the pattern is the route as registered, e.g.
 * "GET /api/updates/artifacts/:sha256". Installed only with --dev, so normal runs pay nothing.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../http/http-error.js';
import { sendError } from '../http/send-error.js';

export interface FaultSpec {
  readonly route: string;
  /** Answer this status (400..599) with the error body, code FAULT_INJECTED. */
  readonly status?: number;
  /** Retry-After seconds sent with status 429 or 503. */
  readonly retry_after_s?: number;
  /** Wait this long before handling (or before the other fault). */
  readonly delay_ms?: number;
  /** Destroy the socket without answering. */
  readonly drop?: boolean;
  /** Send only this many body bytes, then destroy the socket. */
  readonly truncate_bytes?: number;
}

export const MAX_FAULTS = 256;
export const MAX_DELAY_MS = 60_000;

const ROUTE = /^(?:(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS) )?(\/\S{0,500})$/;

interface Armed extends FaultSpec {
  readonly method: string | undefined;
  readonly pattern: string;
}

export class Faults {
  #armed: Armed[] = [];
  #enabled = false;

  /** Validates and arms a fault; throws HttpError 400 INVALID_FAULT on a bad spec. */
  add(spec: unknown): FaultSpec {
    if (!this.#enabled) {
      throw new HttpError(409, 'DEV_DISABLED', 'faults need the server to run with --dev');
    }
    const fault = validateFault(spec);
    if (this.#armed.length >= MAX_FAULTS) {
      throw new HttpError(429, 'TOO_MANY_FAULTS', `at most ${MAX_FAULTS} faults may be armed`);
    }
    const m = ROUTE.exec(fault.route) as RegExpExecArray;
    this.#armed.push({ ...fault, method: m[1], pattern: m[2] as string });
    return fault;
  }

  /** Faults still armed. */
  list(): FaultSpec[] {
    return this.#armed.map(({ method: _m, pattern: _p, ...spec }) => spec);
  }

  clear(): void {
    this.#armed = [];
  }

  /** Removes and returns the first fault armed for this request's route, if any. */
  take(method: string, pattern: string): Armed | undefined {
    const i = this.#armed.findIndex(
      (f) => f.pattern === pattern && (f.method === undefined || f.method === method),
    );
    if (i < 0) return undefined;
    return this.#armed.splice(i, 1)[0];
  }

  /** Installs the onRequest hook that fires armed faults (only with --dev). */
  install(app: FastifyInstance): void {
    this.#enabled = true;
    app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
      if (this.#armed.length === 0) return;
      const pattern = request.routeOptions.url;
      if (pattern === undefined || pattern.startsWith('/api/dev/')) return;
      const fault = this.take(request.method, pattern);
      if (fault === undefined) return;
      await fire(fault, request, reply);
    });
  }
}

async function fire(fault: Armed, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (fault.delay_ms !== undefined && fault.delay_ms > 0) {
    await new Promise((resolve) => setTimeout(resolve, fault.delay_ms));
  }
  if (fault.drop === true) {
    reply.hijack();
    request.raw.socket.destroy();
    return;
  }
  if (fault.status !== undefined) {
    const headers: Record<string, string> = {};
    if (fault.retry_after_s !== undefined && (fault.status === 429 || fault.status === 503)) {
      headers['retry-after'] = String(fault.retry_after_s);
    }
    await sendError(reply, fault.status, 'FAULT_INJECTED', 'injected fault', headers);
    return;
  }
  if (fault.truncate_bytes !== undefined) truncateAfter(reply, fault.truncate_bytes);
}

/**
 * Lets the route answer but passes only `limit` body bytes to the socket, then destroys it.
 * Headers (with the full Content-Length) go out untouched, so the client sees a short body.
 * A body not longer than `limit` is sent whole.
 */
function truncateAfter(reply: FastifyReply, limit: number): void {
  const res = reply.raw;
  const write = res.write.bind(res) as (chunk: Uint8Array, cb?: () => void) => boolean;
  const end = res.end.bind(res) as () => void;
  let left = limit;
  let cut = false;
  // Returns true when the whole chunk went out, false once the cut happened.
  const pass = (chunk: unknown): boolean => {
    if (cut) return false;
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return true;
    const bytes = Buffer.from(chunk as string | Uint8Array);
    if (bytes.length <= left) {
      left -= bytes.length;
      if (bytes.length > 0) write(bytes);
      return true;
    }
    cut = true;
    write(bytes.subarray(0, left), () => res.destroy());
    left = 0;
    return false;
  };
  res.write = ((chunk: unknown) => pass(chunk) && !res.writableNeedDrain) as typeof res.write;
  res.end = ((chunk?: unknown) => {
    if (pass(chunk)) end();
    return res;
  }) as typeof res.end;
}

function validateFault(spec: unknown): FaultSpec {
  const bad = (message: string): never => {
    throw new HttpError(400, 'INVALID_FAULT', message);
  };
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec))
    bad('body is not an object');
  const o = spec as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    if (!['route', 'status', 'retry_after_s', 'delay_ms', 'drop', 'truncate_bytes'].includes(key)) {
      bad(`unknown field ${key}`);
    }
  }
  const { route, status, retry_after_s, delay_ms, drop, truncate_bytes } = o;
  if (typeof route !== 'string' || !ROUTE.test(route)) {
    bad('route must be "METHOD /path/:param" or "/path/:param"');
  }
  const isInt = (v: unknown, min: number, max: number): boolean =>
    typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;
  if (status !== undefined && !isInt(status, 400, 599)) bad('status must be 400..599');
  if (retry_after_s !== undefined && !isInt(retry_after_s, 0, 86_400)) {
    bad('retry_after_s must be 0..86400');
  }
  if (delay_ms !== undefined && !isInt(delay_ms, 0, MAX_DELAY_MS)) {
    bad(`delay_ms must be 0..${MAX_DELAY_MS}`);
  }
  if (drop !== undefined && typeof drop !== 'boolean') bad('drop must be a boolean');
  if (truncate_bytes !== undefined && !isInt(truncate_bytes, 0, Number.MAX_SAFE_INTEGER)) {
    bad('truncate_bytes must be a non-negative integer');
  }
  const actions = [status, drop === true ? true : undefined, truncate_bytes].filter(
    (v) => v !== undefined,
  );
  if (actions.length > 1) bad('give at most one of status, drop, truncate_bytes');
  if (actions.length === 0 && delay_ms === undefined) {
    bad('give one of status, delay_ms, drop, truncate_bytes');
  }
  return o as unknown as FaultSpec;
}
