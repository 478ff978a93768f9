import * as childProcessModule from 'node:child_process';
import * as httpsModule from 'node:https';
import * as tlsModule from 'node:tls';
import * as vmModule from 'node:vm';
import * as workerThreadsModule from 'node:worker_threads';
import * as zlibModule from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { childProcess, https, tls, vm, workerThreads, zlib } from '#node/lazy-builtin.js';

describe('lazy-builtin', () => {
  it('hands out the built-ins themselves, loaded at the first call', () => {
    expect(workerThreads().Worker).toBe(workerThreadsModule.Worker);
    expect(childProcess().spawn).toBe(childProcessModule.spawn);
    expect(vm().runInNewContext).toBe(vmModule.runInNewContext);
    expect(https().request).toBe(httpsModule.request);
    expect(tls().connect).toBe(tlsModule.connect);
    expect(zlib().createGunzip).toBe(zlibModule.createGunzip);
  });
});
