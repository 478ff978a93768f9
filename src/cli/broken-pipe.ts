/**
 * Output that cannot be written (docs/UPDATER.md §7, Exit). Node ignores SIGPIPE and reports a
 * failed write as an `error` event on the stream, which, with no listener, ends the process
 * with a stack trace instead of the command's own exit code. Once a stream has failed, what is
 * still written to it is dropped (Node has destroyed it) and the command runs to its end: an
 * install is never cut short because its output has nowhere to go. Two kinds of failure:
 *
 * - The reader left (`updater update --json | head -c 80`): EPIPE, or EOF as Windows reports a
 *   pipe closed at its far end. The reader chose to stop reading; the exit code is the
 *   command's.
 * - Anything else on stdout (ENOSPC on a full disk, EIO, EBADF...): the result is lost while a
 *   script would take exit 0 for "recorded". It is said on stderr when it happens
 *   (`error OUTPUT_FAILED: ...`) and a run that would have exited 0 exits
 *   EXIT_OUTPUT_FAILED instead; a non-zero code (1, 2, 130...) is kept, as it says more about
 *   the run.
 *
 * stderr only carries diagnostics: its failure is dropped whatever it is, since there is
 * nowhere left to report it, and the exit code still tells a failed run.
 */

/** What this needs of process.stdout and process.stderr. */
export interface OutputStream {
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/**
 * Exit code of a run whose work ended well but whose stdout could not be written: sysexits.h's
 * EX_IOERR. Not 1, which says the run itself was refused or failed (an install done would read
 * as not done); not 2 (usage) nor 128 + n (signals).
 */
export const EXIT_OUTPUT_FAILED = 74;

/** Codes of a write to a pipe whose reader has gone (EOF: Windows, a pipe closed at its end). */
const READER_LEFT = new Set(['EPIPE', 'EOF']);

/** Keeps a failed write to `stream` from ending the process: the stream is dropped. */
export function outliveReader(stream: OutputStream): void {
  stream.on('error', () => {
    // Nothing to do: Node destroyed the stream, so later writes go nowhere, silently.
  });
}

/** Watches stdout: see the module comment. */
export interface OutputWatch {
  /** The first write error that was not a reader leaving, if any. */
  readonly failure: () => Error | undefined;
  /**
   * The exit code for a run that ended with `code`: EXIT_OUTPUT_FAILED in place of 0. Resolves
   * a turn later, once the error of a last write that failed at once (a file, a device: Node
   * writes those synchronously) has been emitted, on the next tick, and reported.
   */
  readonly exitCode: (code: number) => Promise<number>;
}

/**
 * Takes every error of `stream` (as outliveReader) and reports the first one that is not a
 * reader leaving through `report` (stderr), once, when it happens.
 */
export function watchOutput(
  stream: OutputStream,
  name: string,
  report: (line: string) => void,
): OutputWatch {
  let failure: Error | undefined;
  let readerLeft = false;
  stream.on('error', (error) => {
    if (failure !== undefined || readerLeft) return;
    const errno = (error as { code?: unknown }).code;
    if (typeof errno === 'string' && READER_LEFT.has(errno)) {
      readerLeft = true;
      return;
    }
    failure = error;
    report(
      `error OUTPUT_FAILED: ${name} could not be written, the command's output is lost: ` +
        `${error.message}\n${typeof errno === 'string' ? `  errno: ${errno}\n` : ''}`,
    );
  });
  return {
    failure: () => failure,
    exitCode: async (code) => {
      await new Promise((resolve) => setImmediate(resolve));
      return failure !== undefined && code === 0 ? EXIT_OUTPUT_FAILED : code;
    },
  };
}
