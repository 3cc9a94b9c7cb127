// Arrays a call allocates and hands to helpers that keep no name for them (reused-shadows.ts
// callLocalArrays): the forward sweep takes them and their shadows from the tape, the end of the
// backward sweep gives them back, for the next call. Each program is checked in every mode at a point
// (divided differences, the dot-product test), the helper called many times with lengths changing
// between calls, so that an array given back too early, or taken twice, would show; a helper that
// keeps its argument (returns it, stores it) keeps the plain allocation.
import { describe, expect, it } from 'vitest';
import { checkedCode } from './support/checked.js';

/** `body(t)` of the helper taking `t`; `use` its call in `g` */
const program = (helper: string, use: string) => `${helper}
function g(x: number[], n: number): number {
  const t = new Array<number>(n).fill(0);
  for (let i = 0; i < n; i++) t[i] = Math.sin(x[i % x.length] * (i + 1));
${use}
}
export function f(x: number[]): number {
  let s = 0;
  for (let k = 0; k < 6; k++) s = s * 0.5 + g(x, 2 + (k % 3)) * x[k % x.length];
  return s;
}`;

const X = [0.3, -0.7, 1.1, 0.45];

describe('arrays a call allocates, given back to the tape after its backward sweep', () => {
  it('handed to a helper that only reads it: taken from the tape and given back', () => {
    const code = checkedCode(
      program(
        `function lse(v: number[]): number {
  let m = v[0];
  for (let i = 1; i < v.length; i++) if (v[i] > m) m = v[i];
  let s = 0;
  for (let i = 0; i < v.length; i++) s += Math.exp(v[i] - m);
  return m + Math.log(s);
}`,
        '  return lse(t) * t[0];',
      ),
      'f',
      [X],
    );
    expect(code).toMatch(/t = tape\.zerosA\(n\)/);
    expect(code).toMatch(/tape\.giveBack\(t\)/);
    expect(code).toMatch(/tape\.giveBack\(tb\)/);
  });

  it('a helper that returns its argument: a plain allocation', () => {
    const code = checkedCode(
      program(
        `function scaled(v: number[], c: number): number[] {
  for (let i = 0; i < v.length; i++) v[i] *= c;
  return v;
}`,
        '  const u = scaled(t, 0.5);\n  return u[0] * u[u.length - 1];',
      ),
      'f',
      [X],
    );
    expect(code).not.toMatch(/giveBack\(t\)/);
  });

  it('a helper that passes its argument on: a plain allocation', () => {
    const code = checkedCode(
      program(
        `function first(v: number[]): number {
  return v[0] * v[0];
}
function both(v: number[]): number {
  return first(v) + v[v.length - 1];
}`,
        '  return both(t) * t[0];',
      ),
      'f',
      [X],
    );
    expect(code).not.toMatch(/giveBack\(t\)/);
  });
});
