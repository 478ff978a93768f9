/**
 * The body of a node:http response (pushed-body.ts says why not `for await` over the
 * IncomingMessage): four listeners feed a PushedBody, which pauses the response past what it
 * holds. A broken connection becomes the error `fail` maps it to (NETWORK, or ABORTED after an
 * abort), and a reader that leaves early destroys the request, which closes its socket.
 */
import type { ClientRequest, IncomingMessage } from 'node:http';
import type { UpdateError } from '#core/errors.js';
import { errnoError } from './network-error.js';
import { PushedBody } from './pushed-body.js';

/** The chunks of `response`, as described above. */
export function responseBody(
  request: ClientRequest,
  response: IncomingMessage,
  fail: (error: unknown) => UpdateError,
): AsyncIterable<Uint8Array> {
  const body = new PushedBody({
    pause: () => response.pause(),
    resume: () => response.resume(),
    abandon: () => request.destroy(),
  });
  const broken = (error: unknown): void => {
    if (body.done) return;
    body.fail(fail(error));
    // A broken connection: nothing more comes; make sure the socket is not reused.
    request.destroy();
  };
  response.on('data', (chunk: Buffer) => body.push(chunk));
  response.once('end', () => body.end());
  response.once('error', broken);
  // An error event precedes close on a broken connection; a close alone is still no end.
  response.once('close', () => broken(errnoError('ERR_STREAM_PREMATURE_CLOSE', 'premature close')));
  return body;
}
