import { describe, expect, it } from 'vitest';
import { errnoDetails, toUpdateError, UpdateError } from '#core/errors.js';

describe('UpdateError details', () => {
  it('serialises its details with code and message, and leaves them out when none', () => {
    const e = new UpdateError('HTTP_STATUS', 'manifest: unexpected HTTP 404', {
      details: { url: 'http://x/api/updates/manifest', status: 404 },
    });
    expect(e.toJSON()).toEqual({
      code: 'HTTP_STATUS',
      message: 'manifest: unexpected HTTP 404',
      details: { url: 'http://x/api/updates/manifest', status: 404 },
    });
    expect(JSON.stringify(new UpdateError('ROLLBACK', 'older'))).toBe(
      '{"code":"ROLLBACK","message":"older"}',
    );
  });

  it('reads path, dest, errno and syscall of a Node errno error', () => {
    const error = Object.assign(new Error('ENOSPC: no space left on device'), {
      code: 'ENOSPC',
      path: '/state/.updater/state.json.tmp',
      syscall: 'write',
    });
    expect(errnoDetails(error)).toEqual({
      path: '/state/.updater/state.json.tmp',
      errno: 'ENOSPC',
      syscall: 'write',
    });
    expect(errnoDetails(new Error('plain'))).toBeUndefined();
    expect(errnoDetails('text')).toBeUndefined();
  });

  it('types an unknown errno error as IO carrying its path and errno', () => {
    const error = Object.assign(new Error('EACCES: permission denied'), {
      code: 'EACCES',
      path: '/opt/app',
      syscall: 'open',
    });
    const e = toUpdateError(error);
    expect(e.code).toBe('IO');
    expect(e.details).toEqual({ path: '/opt/app', errno: 'EACCES', syscall: 'open' });
  });
});
