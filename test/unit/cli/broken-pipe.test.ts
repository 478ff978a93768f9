/**
 * Output whose reader has gone (src/cli/broken-pipe.ts): the stream's failure is taken, later
 * writes are dropped, and the CLI ends with its command's exit code, not a stack trace.
 */
import { spawn } from 'node:child_process';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { outliveReader } from '../../../src/cli/broken-pipe.js';
import { CLI_ENTRY, REPO_ROOT } from '../../helpers/updater-harness.js';

/** A stream whose every write fails as a pipe with no reader does. */
function pipeWithoutReader(): Writable {
  return new Writable({
    write(_chunk, _encoding, callback) {
      callback(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    },
  });
}

describe('outliveReader', () => {
  it('takes the failed write: no error event is left unhandled, later writes are dropped', async () => {
    const stream = pipeWithoutReader();
    outliveReader(stream);
    stream.write('first');
    await new Promise((resolve) => setImmediate(resolve));
    expect(stream.destroyed).toBe(true);
    // An `error` event with no listener throws where it is emitted.
    expect(() => stream.emit('error', new Error('write EPIPE'))).not.toThrow();
    expect(() => stream.write('later')).not.toThrow();
  });
});

describe('the CLI with its stdout closed by the reader', () => {
  it('ends with its command code and no stack trace (`updater check --json ... | head -c 10`)', async () => {
    // An unknown option is echoed in the result: 240 KB of JSON, more than a pipe holds, so
    // the write is still pending when the reader leaves after its first chunk.
    const bogus = `--bogus-${'a'.repeat(120_000)}`;
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', CLI_ENTRY, 'check', '--json', bogus],
      {
        cwd: REPO_ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child.stdout.once('data', () => child.stdout.destroy());
    const stderr: Buffer[] = [];
    child.stderr.on('data', (b: Buffer) => stderr.push(b));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    const text = Buffer.concat(stderr).toString('utf8');
    expect(text).toMatch(/^error CONFIG_INVALID: Unknown option/);
    expect(text).not.toMatch(/EPIPE|Unhandled/);
    expect(code).toBe(2);
  }, 30_000);
});
