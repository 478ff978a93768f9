/**
 * Every registered route, kept so that a request for a known path with an unknown method gets
 * 405 with an Allow header (RFC 9110 §15.5.6) instead of a bare 404.
 */
import type { FastifyInstance } from 'fastify';

interface Entry {
  readonly pattern: RegExp;
  readonly methods: Set<string>;
}

export class RouteTable {
  readonly #byUrl = new Map<string, Entry>();

  /** Installs the onRoute hook; call before any route is registered. */
  install(app: FastifyInstance): void {
    app.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      let entry = this.#byUrl.get(route.url);
      if (entry === undefined) {
        entry = { pattern: toPattern(route.url), methods: new Set() };
        this.#byUrl.set(route.url, entry);
      }
      for (const m of methods) entry.methods.add(m.toUpperCase());
    });
  }

  /** Methods allowed on `path`, or an empty list when no route matches it. */
  allowedMethods(path: string): string[] {
    const allowed = new Set<string>();
    for (const entry of this.#byUrl.values()) {
      if (entry.pattern.test(path)) for (const m of entry.methods) allowed.add(m);
    }
    return [...allowed].sort();
  }
}

// ":param" matches one segment, "*" the rest; everything else is literal.
function toPattern(url: string): RegExp {
  const escaped = url
    .split('/')
    .map((segment) => {
      if (segment === '*') return '.*';
      if (segment.startsWith(':')) return '[^/]+';
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return new RegExp(`^${escaped}$`);
}
