/**
 * Output whose reader has gone (docs/UPDATER.md §7, Exit): `updater update --json | head -c 80`
 * closes the pipe before the result is written. Node ignores SIGPIPE and reports the failed
 * write as an `error` event on the stream, which, with no listener, ends the process with a
 * stack trace instead of the command's own exit code. Once a stream has failed, what is still
 * written to it is dropped (Node has destroyed it) and the command finishes as it would have:
 * an install is never cut short because its output has nowhere to go, and the exit code is
 * the command's. Any write error is taken this way, not only EPIPE: the run's result is on
 * disk and in the exit code whatever became of its output.
 */

/** What this needs of process.stdout and process.stderr. */
export interface OutputStream {
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/** Keeps a failed write to `stream` from ending the process: the stream is dropped. */
export function outliveReader(stream: OutputStream): void {
  stream.on('error', () => {
    // Nothing to do: Node destroyed the stream, so later writes go nowhere, silently.
  });
}
