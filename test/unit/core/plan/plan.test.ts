import { describe, expect, it } from 'vitest';
import { holdsExactly, planHeldSet, planUpdate } from '#core/plan/plan.js';
import type { InstalledSet } from '#core/state.js';
import { pinKeys, verifyManifest } from '#core/trust/verify.js';
import { envelopeBytes, manifestOf, sha256Hex, testKey, text } from '#test/fakes.js';

const key = testKey();
const a1 = text('a one');
const b1 = text('b one, longer');
const a2 = text('a two!');

function verified(version: string, files: { name: string; content: Uint8Array }[]) {
  return verifyManifest(
    envelopeBytes(manifestOf(version, files), key),
    pinKeys([key.hex]),
    1 << 20,
  );
}

function installed(version: string, files: { name: string; content: Uint8Array }[]): InstalledSet {
  return {
    setId: verified(version, files).setId,
    version,
    artifacts: files.map((f) => ({
      name: f.name,
      size: f.content.length,
      sha256: sha256Hex(f.content),
    })),
  };
}

describe('planUpdate', () => {
  it('carries the signed release notes into the summary, and none when the release has none', () => {
    const files = [{ name: 'a', content: a1 }];
    const withNotes = verifyManifest(
      envelopeBytes({ ...manifestOf('2.0.0', files), notes: '- faster' }, key),
      pinKeys([key.hex]),
      1 << 20,
    );
    expect(planUpdate(null, withNotes).summary.notes).toBe('- faster');
    expect('notes' in planUpdate(null, verified('2.0.0', files)).summary).toBe(false);
  });

  it('fetches everything on a first install', () => {
    const plan = planUpdate(
      null,
      verified('1.0.0', [
        { name: 'a', content: a1 },
        { name: 'b', content: b1 },
      ]),
    );
    expect(plan.summary.fromVersion).toBeNull();
    expect(plan.summary.fetch.map((f) => f.name)).toEqual(['a', 'b']);
    expect(plan.summary.bytesToFetch).toBe(a1.length + b1.length);
    expect(plan.summary.bytesToReuse).toBe(0);
    expect(plan.upToDate).toBe(false);
  });

  it('fetches only the changed artifact and reuses the rest', () => {
    const from = installed('1.0.0', [
      { name: 'a', content: a1 },
      { name: 'b', content: b1 },
    ]);
    const plan = planUpdate(
      from,
      verified('1.1.0', [
        { name: 'a', content: a2 },
        { name: 'b', content: b1 },
      ]),
    );
    expect(plan.summary.fetch).toEqual([{ name: 'a', size: a2.length }]);
    expect(plan.summary.reuse).toEqual([{ name: 'b', size: b1.length }]);
    expect(plan.summary.bytesToFetch).toBe(a2.length);
    expect(plan.summary.bytesToReuse).toBe(b1.length);
  });

  it('reuses a new digest the blob store already holds (after a rollback): 0 bytes to fetch', () => {
    const from = installed('1.0.0', [{ name: 'a', content: a1 }]);
    const target = verified('1.1.0', [{ name: 'a', content: a2 }]);
    const plan = planUpdate(from, target, new Set([sha256Hex(a2)]));
    expect(plan.summary.fetch).toEqual([]);
    expect(plan.summary.reuse).toEqual([{ name: 'a', size: a2.length }]);
    expect(plan.summary.bytesToFetch).toBe(0);
    expect(plan.summary.bytesToReuse).toBe(a2.length);
    expect(plan.upToDate).toBe(false);
  });

  it('lists names no longer in the manifest for removal', () => {
    const from = installed('1.0.0', [
      { name: 'a', content: a1 },
      { name: 'old', content: b1 },
    ]);
    const plan = planUpdate(from, verified('1.1.0', [{ name: 'a', content: a1 }]));
    expect(plan.summary.remove).toEqual(['old']);
    expect(plan.summary.bytesToFetch).toBe(0);
  });

  it('reuses content already installed under another name (content addressed)', () => {
    const from = installed('1.0.0', [{ name: 'a', content: a1 }]);
    const plan = planUpdate(from, verified('1.1.0', [{ name: 'renamed', content: a1 }]));
    expect(plan.summary.reuse).toEqual([{ name: 'renamed', size: a1.length }]);
    expect(plan.summary.remove).toEqual(['a']);
  });

  it('downloads identical contents once and counts their bytes once', () => {
    const plan = planUpdate(
      null,
      verified('1.0.0', [
        { name: 'x', content: a1 },
        { name: 'y', content: a1 },
      ]),
    );
    expect(plan.summary.fetch).toHaveLength(2);
    expect(plan.summary.bytesToFetch).toBe(a1.length);
  });

  it('tells per artifact how it comes: whole, reused, or a second entry of one digest', () => {
    const from = installed('1.0.0', [{ name: 'b', content: b1 }]);
    const plan = planUpdate(
      from,
      verified('1.1.0', [
        { name: 'a', content: a2 },
        { name: 'b', content: b1 },
        { name: 'c', content: a2 },
      ]),
    );
    const entry = (name: string, size: number, method: string, fetchBytes: number) => ({
      name,
      size,
      method,
      fetchBytes,
      reusedBytes: size - fetchBytes,
      indexBytes: 0,
    });
    expect(plan.summary.artifacts).toEqual([
      entry('a', a2.length, 'whole', a2.length),
      entry('b', b1.length, 'reuse', 0),
      entry('c', a2.length, 'reuse', 0),
    ]);
    // The totals are the entries added up: every byte is either fetched or reused.
    expect(plan.summary.bytesToFetch).toBe(a2.length);
    expect(plan.summary.bytesToReuse).toBe(b1.length + a2.length);
  });

  it('is up to date when the installed set came from this very manifest', () => {
    const files = [{ name: 'a', content: a1 }];
    const plan = planUpdate(installed('1.0.0', files), verified('1.0.0', files));
    expect(plan.upToDate).toBe(true);
    expect(plan.summary.fetch).toEqual([]);
  });

  it('plans an up-to-date set as the general path would: all reused, nothing removed', () => {
    const files = [
      { name: 'a', content: a1 },
      { name: 'b', content: b1 },
      { name: 'c', content: a1 },
    ];
    const same = installed('1.0.0', files);
    const plan = planUpdate(same, verified('1.0.0', files));
    // The general path, reached with a list in another order (same entries).
    const general = planUpdate(
      { ...same, artifacts: [...same.artifacts].reverse() },
      verified('1.0.0', files),
    );
    expect(general.upToDate).toBe(true);
    expect(plan.upToDate).toBe(true);
    expect(plan.summary).toEqual(general.summary);
    // Another setId over the same entries: the same plan, not up to date.
    const other = planUpdate(
      { ...same, setId: sha256Hex(text('other')) },
      verified('1.0.0', files),
    );
    expect(other.upToDate).toBe(false);
    expect(other.summary).toEqual(plan.summary);
    expect(plan.summary.reuse.map((r) => r.name)).toEqual(['a', 'b', 'c']);
    expect(plan.summary.bytesToReuse).toBe(2 * a1.length + b1.length);
    expect(plan.summary.fromVersion).toBe('1.0.0');
  });

  it('planHeldSet (what accept calls after its own holdsExactly) is the general plan', () => {
    const files = [
      { name: 'a', content: a1 },
      { name: 'b', content: b1 },
    ];
    const same = installed('1.0.0', files);
    const manifest = verified('1.0.0', files);
    expect(holdsExactly(same, manifest)).toBe(true);
    const held = planHeldSet(same, manifest);
    const general = planUpdate({ ...same, artifacts: [...same.artifacts].reverse() }, manifest);
    expect(held).toEqual(general);
    expect(holdsExactly({ ...same, artifacts: same.artifacts.slice(0, 1) }, manifest)).toBe(false);
  });

  it('takes the same setId over fewer entries (a repair) through the general path', () => {
    const files = [
      { name: 'a', content: a1 },
      { name: 'b', content: b1 },
    ];
    const full = installed('1.0.0', files);
    const plan = planUpdate(
      { ...full, artifacts: full.artifacts.slice(0, 1) },
      verified('1.0.0', files),
    );
    expect(plan.summary.fetch).toEqual([{ name: 'b', size: b1.length }]);
    expect(plan.summary.reuse).toEqual([{ name: 'a', size: a1.length }]);
  });
});
