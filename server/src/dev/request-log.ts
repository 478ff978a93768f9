/**
 * The dev request log (GET /api/dev/requests): the last requests with their route, status and
 * timing, secrets redacted. Bounded (a ring of MAX_ENTRIES); bodies are never recorded, only
 * their length. Installed only with --dev.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerClock } from '../platform/clock.js';

export const MAX_ENTRIES = 1000;

export interface RequestLogEntry {
  readonly seq: number;
  readonly at: string;
  readonly method: string;
  /** The path with secret-looking query values replaced by "[redacted]". */
  readonly url: string;
  /** The registered route pattern, or null for unknown routes. */
  readonly route: string | null;
  readonly status: number;
  readonly duration_ms: number;
  /** Request headers, with credentials replaced by "[redacted]". */
  readonly headers: Readonly<Record<string, string>>;
  readonly body_bytes: number;
}

// Headers and query keys whose values are credentials or one-time codes.
const SECRET_HEADERS = new Set(['authorization', 'cookie', 'set-cookie', 'proxy-authorization']);
const SECRET_QUERY =
  /^(?:.*token.*|code|code_verifier|client_secret|secret|password|machine_key|key|assertion)$/i;

/** Replaces the values of secret query parameters. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const key = eq < 0 ? pair : pair.slice(0, eq);
      let name = key;
      try {
        name = decodeURIComponent(key);
      } catch {
        // A malformed escape is kept as written.
      }
      return eq >= 0 && SECRET_QUERY.test(name) ? `${key}=[redacted]` : pair;
    });
  return `${url.slice(0, q)}?${params.join('&')}`;
}

/** Copies headers, redacting credentials. */
export function redactHeaders(headers: FastifyRequest['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name] = SECRET_HEADERS.has(name)
      ? '[redacted]'
      : Array.isArray(value)
        ? value.join(', ')
        : value;
  }
  return out;
}

export class RequestLog {
  readonly #ring: RequestLogEntry[] = [];
  #seq = 0;
  #enabled = false;

  constructor(private readonly clock: ServerClock) {}

  get enabled(): boolean {
    return this.#enabled;
  }

  /** The recorded requests, oldest first; `sinceSeq` keeps only later ones. */
  list(sinceSeq = 0, limit = MAX_ENTRIES): RequestLogEntry[] {
    return this.#ring.filter((e) => e.seq > sinceSeq).slice(-limit);
  }

  clear(): void {
    this.#ring.length = 0;
  }

  record(entry: Omit<RequestLogEntry, 'seq'>): void {
    this.#ring.push({ seq: ++this.#seq, ...entry });
    if (this.#ring.length > MAX_ENTRIES) this.#ring.shift();
  }

  /** Installs the onResponse hook (only with --dev). */
  install(app: FastifyInstance): void {
    this.#enabled = true;
    app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done) => {
      // The log's own route is left out so that reading it does not grow it.
      if (request.routeOptions.url !== '/api/dev/requests') {
        const length = Number(request.headers['content-length'] ?? 0);
        this.record({
          at: new Date(this.clock.now()).toISOString(),
          method: request.method,
          url: redactUrl(request.url),
          route: request.routeOptions.url ?? null,
          status: reply.statusCode,
          duration_ms: Math.round(reply.elapsedTime * 100) / 100,
          headers: redactHeaders(request.headers),
          body_bytes: Number.isFinite(length) ? length : 0,
        });
      }
      done();
    });
  }
}
