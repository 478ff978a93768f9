import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createEventStreams, sseFrame } from '#web/event-stream.js';

class FakeResponse extends EventEmitter {
  written: string[] = [];
  status = 0;
  writableLength = 0;
  destroyed = false;
  writeHead(status: number): this {
    this.status = status;
    return this;
  }
  write(text: string): boolean {
    this.written.push(text);
    return true;
  }
  end(): void {
    this.emit('close');
  }
  destroy(): void {
    this.destroyed = true;
    this.emit('close');
  }
}

const fake = (): FakeResponse & ServerResponse => new FakeResponse() as never;

afterEach(() => {
  vi.useRealTimers();
});

describe('event streams', () => {
  it('frames one event as event + one JSON data line', () => {
    expect(sseFrame('status', { a: 'x\ny' })).toBe('event: status\ndata: {"a":"x\\ny"}\n\n');
  });

  it('broadcasts to every open page and forgets closed ones', () => {
    const streams = createEventStreams({ maxClients: 4, heartbeatMs: 1000, maxQueuedBytes: 100 });
    const a = fake();
    const b = fake();
    expect(streams.open(a, {})).toBe(true);
    expect(streams.open(b, {})).toBe(true);
    b.emit('close');
    streams.broadcast('status', 1);
    expect(a.written.at(-1)).toBe('event: status\ndata: 1\n\n');
    expect(b.written).not.toContain('event: status\ndata: 1\n\n');
    expect(streams.size).toBe(1);
  });

  it('refuses one page more than the cap', () => {
    const streams = createEventStreams({ maxClients: 1, heartbeatMs: 1000, maxQueuedBytes: 100 });
    expect(streams.open(fake(), {})).toBe(true);
    expect(streams.open(fake(), {})).toBe(false);
  });

  it('drops a page that stops reading once too much is queued (bounded memory)', () => {
    const streams = createEventStreams({ maxClients: 2, heartbeatMs: 1000, maxQueuedBytes: 100 });
    const slow = fake();
    streams.open(slow, {});
    slow.writableLength = 101;
    streams.broadcast('status', 1);
    expect(slow.destroyed).toBe(true);
    expect(streams.size).toBe(0);
  });

  it('sends a heartbeat comment while pages are open, and stops when none is', () => {
    vi.useFakeTimers();
    const streams = createEventStreams({ maxClients: 2, heartbeatMs: 1000, maxQueuedBytes: 100 });
    const page = fake();
    streams.open(page, {});
    vi.advanceTimersByTime(1000);
    expect(page.written.at(-1)).toBe(': ping\n\n');
    streams.closeAll();
    expect(vi.getTimerCount()).toBe(0);
  });
});
