/**
 * The server's logger: pino JSON with credentials redacted (docs/PROTOCOL.md §1, Logging), and
 * the one cheap line per request that replaces Fastify's two.
 */
import type { FastifyInstance } from 'fastify';
import { destination, pino, type DestinationStream, type Logger } from 'pino';
import { redactUrl } from '../dev/request-log.js';

/** Log paths whose values are credentials (pino redaction). */
export const REDACTED_LOG_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'headers.cookie',
  '*.authorization',
  'authorization',
  'machine_key',
  '*.machine_key',
  'token',
  '*.token',
  '*.access_token',
  '*.refresh_token',
  '*.id_token',
  '*.code',
  '*.code_verifier',
  'client_secret',
  '*.client_secret',
  'qa_client_secret',
  '*.qa_client_secret',
  '*.secret',
  '*.password',
  'secret_key_hex',
  '*.secret_key_hex',
];

/** A pino logger at `level` writing to `stream` (default stdout). */
export function createLogger(level: string, stream?: DestinationStream): Logger {
  return pino(
    { level, redact: { paths: REDACTED_LOG_PATHS, censor: '[redacted]' } },
    stream ?? destination(1),
  );
}

/**
 * One line per request at info (method, redacted URL, status, ms); nothing above info.
 * The line is written by a child logger without pino's redaction: its four fields are built
 * here, the URL already through redactUrl, so no credential can reach it, and path redaction
 * (wildcards included) cost more than the rest of the line on every request
 * (docs/SERVER.md §Figures behind the code).
 */
export function logEachRequest(app: FastifyInstance, logger: Logger): void {
  if (!logger.isLevelEnabled('info')) return; // --log-level warn drops it (benchmarks)
  const line = logger.child({}, { redact: { paths: [] } });
  app.addHook('onResponse', (request, reply, done) => {
    line.info(
      {
        method: request.method,
        url: redactUrl(request.url),
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
      },
      'request',
    );
    done();
  });
}
