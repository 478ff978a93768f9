/** The real clock, timers and randomness for the core's ports. */
import { randomBytes, randomInt } from 'node:crypto';
import type { Clock, Random, RandomBytes, Timers } from '#core/ports.js';

export const systemClock: Clock = { nowMs: () => Date.now() };

export const systemTimers: Timers = {
  setTimeout: (callback, delayMs) => setTimeout(callback, delayMs),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** Jitter needs no secrecy, but the CSPRNG is cheap enough and avoids a second source. */
export const systemRandom: Random = () => randomInt(0, 2 ** 31) / 2 ** 31;

/** The CSPRNG, for request nonces. */
export const systemRandomBytes: RandomBytes = (length) => new Uint8Array(randomBytes(length));
