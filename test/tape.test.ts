// The tape: LIFO across growing chunks, byte accounting, reuse through the pool.
import { expect, it } from 'vitest';
import { Tape } from '../src/runtime/tape.js';

it('pops what it pushed, in reverse, across chunk boundaries', () => {
  const t = Tape.acquire();
  const n = 300_000;
  for (let k = 0; k < n; k++) {
    t.pushF(k * 0.5);
    if (k % 3 === 0) t.pushI(k);
  }
  expect(t.bytes).toBe(n * 8 + Math.ceil(n / 3) * 4);
  for (let k = n - 1; k >= 0; k--) {
    if (k % 3 === 0) expect(t.popI()).toBe(k);
    expect(t.popF()).toBe(k * 0.5);
  }
  expect(t.empty).toBe(true);
  expect(t.peakBytes).toBeGreaterThanOrEqual(n * 8);
  expect(() => t.popF()).toThrow(/underflow/);
  Tape.release(t);
  const u = Tape.acquire();
  expect(u.empty).toBe(true);
  u.pushR([1, 2]);
  expect(u.popR<number[]>()).toEqual([1, 2]);
  Tape.release(u);
});
