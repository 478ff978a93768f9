/**
 * The body of a pipelined answer (src/node/http/pushed-body.ts): chunks handed on in order,
 * back-pressure on the connection past 64 KiB held, an early exit abandons the connection.
 */
import { describe, expect, it } from 'vitest';
import { UpdateError } from '#core/errors.js';
import { PushedBody } from '#node/http/pushed-body.js';

function source() {
  const calls: string[] = [];
  return {
    calls,
    pause: () => calls.push('pause'),
    resume: () => calls.push('resume'),
    abandon: () => calls.push('abandon'),
  };
}

describe('PushedBody', () => {
  it('hands chunks on in order, held or awaited, then ends', async () => {
    const body = new PushedBody(source());
    body.push(Buffer.from('ab'));
    const waiting = (async () => {
      const parts: string[] = [];
      for await (const chunk of body) parts.push(Buffer.from(chunk).toString());
      return parts.join('');
    })();
    await Promise.resolve();
    body.push(Buffer.from('cd'));
    body.end();
    expect(await waiting).toBe('abcd');
  });

  it('pauses the connection past 64 KiB held and resumes once the reader takes them', async () => {
    const src = source();
    const body = new PushedBody(src);
    for (let i = 0; i < 15; i++) body.push(Buffer.alloc(4096));
    expect(src.calls).toEqual([]);
    body.push(Buffer.alloc(4096));
    expect(src.calls).toEqual(['pause']);
    await body.next();
    expect(src.calls).toEqual(['pause', 'resume']);
  });

  it('abandons the connection when the reader leaves before the end, not after it', async () => {
    const early = source();
    const body = new PushedBody(early);
    body.push(Buffer.from('x'));
    await body.return();
    expect(early.calls).toEqual(['abandon']);

    const late = source();
    const done = new PushedBody(late);
    done.end();
    await done.return();
    expect(late.calls).toEqual([]);
  });

  it('rejects the reader with the failure', async () => {
    const body = new PushedBody(source());
    const reading = body.next();
    body.fail(new UpdateError('NETWORK', 'premature close', { transient: true }));
    await expect(reading).rejects.toMatchObject({ code: 'NETWORK' });
    await expect(body.next()).rejects.toMatchObject({ code: 'NETWORK' });
  });
});
