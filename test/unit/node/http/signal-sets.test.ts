import { describe, expect, it } from 'vitest';
import { SignalSets } from '#node/http/signal-sets.js';

describe('SignalSets', () => {
  it("ends what is still in a signal's set when it aborts, once, and nothing of another signal", () => {
    const ended: string[] = [];
    const sets = new SignalSets<string>((item) => ended.push(item));
    const a = new AbortController();
    const b = new AbortController();
    const setA = sets.of(a.signal);
    expect(sets.of(a.signal)).toBe(setA);
    setA.add('one');
    setA.add('two');
    setA.add('gone');
    setA.delete('gone');
    sets.of(b.signal).add('other');
    a.abort();
    a.abort();
    expect(ended).toEqual(['one', 'two']);
    expect(setA.size).toBe(0);
  });
});
