// The runtime's array helpers that generated code calls: zeros(n) must behave like `new Array(n).fill(0)`.
import { expect, it } from 'vitest';
import { zeros, zerosLike } from '../src/runtime/arrays.js';

it('zeros(n) gives n zeros in a fresh array, like new Array(n).fill(0)', () => {
  for (const n of [0, 1, 7, 300, 70_000, 1 << 16, (1 << 16) + 1]) {
    const a = zeros(n);
    expect(a).toHaveLength(n);
    expect(a.every((v) => v === 0 && !Object.is(v, -0))).toBe(true);
    expect(Array.isArray(a)).toBe(true);
  }
  // arrays handed out share nothing: writing one leaves the next untouched
  const a = zeros(5);
  a[2] = 3.5;
  a.push(1);
  expect(zeros(5)).toEqual([0, 0, 0, 0, 0]);
  expect(zeros(10)).toEqual(new Array(10).fill(0));
});

it('zeros(n) refuses the lengths new Array(n) refuses', () => {
  for (const n of [-1, 2.5, NaN, 2 ** 32]) {
    expect(() => new Array(n)).toThrow(RangeError);
    expect(() => zeros(n)).toThrow(RangeError);
  }
});

it('zerosLike shapes number arrays with zeros(n)', () => {
  const z = zerosLike([[1, 2], [3]]);
  expect(z).toEqual([[0, 0], [0]]);
  z[0][1] = 4;
  expect(zerosLike([[1, 2]])).toEqual([[0, 0]]);
});
