import { describe, expect, it } from 'vitest';
import { MachineRegistry } from '#server/chain/machine-registry.js';
import { refusal } from '#test/chain-context.js';

describe('machine registry', () => {
  it('assigns dense indices in insertion order and looks machines up by id', () => {
    const r = new MachineRegistry();
    expect(r.upsert({ id: 'b', name: 'B', visibility: 'public' })).toEqual({
      index: 0,
      created: true,
    });
    expect(r.upsert({ id: 'a', name: 'A', visibility: 'private' })).toEqual({
      index: 1,
      created: true,
    });
    expect(r.indexOf('a')).toBe(1);
    expect(r.idAt(0)).toBe('b');
    expect(r.nameAt(1)).toBe('A');
    expect(r.isPrivate(1)).toBe(true);
    expect(r.isPrivate(0)).toBe(false);
    expect(r.size).toBe(2);
  });

  it('updates name and visibility of an existing id and bumps the generation', () => {
    const r = new MachineRegistry();
    r.upsert({ id: 'a', name: 'A', visibility: 'public' });
    const before = r.generation;
    expect(r.upsert({ id: 'a', name: 'A2', visibility: 'private' })).toEqual({
      index: 0,
      created: false,
    });
    expect(r.nameAt(0)).toBe('A2');
    expect(r.visibilityAt(0)).toBe('private');
    expect(r.generation).toBeGreaterThan(before);
  });

  it('an identical re-post changes nothing, not even the generation', () => {
    const r = new MachineRegistry();
    r.upsert({ id: 'a', name: 'A', visibility: 'public' });
    const before = r.generation;
    r.upsert({ id: 'a', name: 'A', visibility: 'public' });
    expect(r.generation).toBe(before);
  });

  it('grows past its initial capacity', () => {
    const r = new MachineRegistry();
    for (let i = 0; i < 3000; i++)
      r.upsert({ id: `m${i}`, name: 'n', visibility: i === 2500 ? 'private' : 'public' });
    expect(r.isPrivate(2500)).toBe(true);
    expect(r.isPrivate(2499)).toBe(false);
  });

  it('refuses an empty id', () => {
    expect(
      refusal(() => new MachineRegistry().upsert({ id: '', name: 'x', visibility: 'public' })),
    ).toBe('INVALID_MACHINE_ID');
  });

  it('refuses an id with spaces, slashes or non-ASCII', () => {
    for (const id of ['a b', 'a/b', 'é', '-a', 'x'.repeat(65)])
      expect(
        refusal(() => new MachineRegistry().upsert({ id, name: 'x', visibility: 'public' })),
      ).toBe('INVALID_MACHINE_ID');
  });

  it('refuses a blank name', () => {
    expect(
      refusal(() => new MachineRegistry().upsert({ id: 'a', name: '  ', visibility: 'public' })),
    ).toBe('INVALID_NAME');
  });

  it('refuses a name with control characters or over 100 characters', () => {
    for (const name of ['a\nb', 'a\u0000', 'x'.repeat(101), '\uD800'])
      expect(
        refusal(() => new MachineRegistry().upsert({ id: 'a', name, visibility: 'public' })),
      ).toBe('INVALID_NAME');
  });

  it('refuses a visibility other than public or private', () => {
    const input = { id: 'a', name: 'x', visibility: 'secret' } as unknown as Parameters<
      MachineRegistry['upsert']
    >[0];
    expect(refusal(() => new MachineRegistry().upsert(input))).toBe('INVALID_VISIBILITY');
  });

  it('refuses machines beyond its cap, and loses none of the others', () => {
    const r = new MachineRegistry(2);
    r.upsert({ id: 'a', name: 'A', visibility: 'public' });
    r.upsert({ id: 'b', name: 'B', visibility: 'public' });
    expect(refusal(() => r.upsert({ id: 'c', name: 'C', visibility: 'public' }))).toBe(
      'TOO_MANY_MACHINES',
    );
    expect(r.size).toBe(2);
    expect(r.upsert({ id: 'a', name: 'A', visibility: 'private' }).created).toBe(false);
  });

  it('clear() forgets every machine', () => {
    const r = new MachineRegistry();
    r.upsert({ id: 'a', name: 'A', visibility: 'public' });
    r.clear();
    expect(r.size).toBe(0);
    expect(r.indexOf('a')).toBeUndefined();
  });
});
