import { describe, expect, it } from 'vitest';
import { decodeRetiredKeys, encodeRetiredKeys, retiredAfter } from '#core/tuf/retired-keys.js';
import { parseEnvelope, type Root } from '#protocol/tuf/index.js';
import { SimRepo } from './sim-repo.js';
import { NOW, DAY, newKey } from './tuf-kit.js';

const rootOf = (bytes: Uint8Array): Root => parseEnvelope(bytes, 'root').signed;

describe('retired keys kept beside root.json', () => {
  it('round-trip through their bytes', () => {
    const repo = new SimRepo();
    const before = rootOf(repo.initialRoot);
    const old = repo.keys.timestamp[0]!;
    const after = rootOf(repo.rotateRoot(() => (repo.keys.timestamp = [newKey()])));
    const retired = retiredAfter(new Map(), before, after);
    const again = decodeRetiredKeys(encodeRetiredKeys(retired), after);
    expect([...(again.get('timestamp')?.keys() ?? [])]).toEqual([old.keyid]);
    expect(again.get('timestamp')?.get(old.keyid)).toEqual(before.keys.get(old.keyid));
    expect(again.get('root')?.size).toBe(0);
  });

  it('never retire a key the trusted root lists for that role', () => {
    const repo = new SimRepo();
    const before = rootOf(repo.initialRoot);
    const after = rootOf(repo.rotateRoot(() => (repo.keys.timestamp = [newKey()])));
    const bytes = encodeRetiredKeys(retiredAfter(new Map(), before, after));
    // Read under the older root (a crash between the list and root.json): nothing retired.
    expect(decodeRetiredKeys(bytes, before).get('timestamp')?.size).toBe(0);
  });

  it('read as none when missing or unreadable', () => {
    const root = rootOf(new SimRepo().initialRoot);
    expect(decodeRetiredKeys(undefined, root).size).toBe(0);
    expect(decodeRetiredKeys(new TextEncoder().encode('{"root":'), root).size).toBe(0);
    const odd = new TextEncoder().encode('{"root":{"k":{"keytype":1}},"timestamp":[]}');
    expect(decodeRetiredKeys(odd, root).get('root')?.size).toBe(0);
  });

  it('name KEY_RETIRED in a later run than the one that saw the rotation', async () => {
    const repo = new SimRepo();
    const old = repo.keys.timestamp;
    repo.rotateRoot(() => (repo.keys.timestamp = [newKey()]));
    repo.publish();
    await (await repo.client()).refresh();
    expect(repo.store.version('root')).toBe(2);
    // The next run starts from root 2: only the kept list knows the old key.
    repo.keys.timestamp = old;
    repo.timestamp.version += 1;
    repo.publish();
    await expect((await repo.client(NOW + DAY / 2)).refresh()).rejects.toMatchObject({
      code: 'KEY_RETIRED',
      details: { retired_keyid: old[0]!.keyid },
    });
    repo.store.retired = undefined;
    await expect((await repo.client(NOW + DAY / 2)).refresh()).rejects.toMatchObject({
      code: 'THRESHOLD_NOT_MET',
    });
  });
});
