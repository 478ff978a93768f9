/**
 * One plain node:http server on 127.0.0.1 per test, closed (connections too) after each: the
 * fetcher tests answer by hand what a registry or a broken peer would send.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

type Handler = Parameters<typeof createServer>[1];

export interface LoopbackServer {
  /** Starts the test's server; resolves to its origin (`http://127.0.0.1:PORT`). */
  readonly serve: (handler: Handler) => Promise<string>;
  /** Closes it now (its connections too), so that nothing listens at its port. */
  readonly close: () => Promise<void>;
}

/** Registers the clean-up after each test of the calling file. */
export function useLoopbackServer(): LoopbackServer {
  let server: Server | undefined;
  const close = async (): Promise<void> => {
    const s = server;
    server = undefined;
    if (s !== undefined) {
      s.closeAllConnections();
      await new Promise((resolve) => s.close(resolve));
    }
  };
  afterEach(close);
  return {
    close,
    serve: async (handler) => {
      const s = createServer(handler);
      server = s;
      await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
    },
  };
}

/** Every byte of a body, as UTF-8 text. */
export async function readAll(body: AsyncIterable<Uint8Array>): Promise<string> {
  const parts: Uint8Array[] = [];
  for await (const chunk of body) parts.push(chunk);
  return Buffer.concat(parts).toString();
}
