// Shadows zeroed once (reused-shadows.ts zeroedBelowLoops): where the backward sweep undoes a pass's
// allocation right after reversing the loop that wrote each of its elements once, that loop has reset
// the elements' adjoints already, and `zeroedFor(xb, x, L)` zeroes only what lies beyond them. Each
// program is checked in every mode at a point (divided differences, the dot-product test), with
// several points and passes; where the writing loop leaves an element out, the shadow is zeroed whole.
import { describe, expect, it } from 'vitest';
import { checkedCode } from './support/checked.js';

const X = [
  [0.3, -0.7, 1.1, 0.45],
  [-0.2, 0.5, 0.8, -1.3],
  [0.9, 0.1, -0.4, 0.25],
];
const M = [
  [0.2, -0.4, 0.9, 0.1],
  [-0.3, 0.8, 0.05, 0.6],
  [0.7, 0.15, -0.5, 0.35],
];

/** a pass per component: `diff` made by `make`, then a triangle over it */
const program = (make: string) => `export function f(x: number[][], m: number[][]): number {
  let total = 0;
  for (let i = 0; i < x.length; i++) {
    const xi = x[i];
    let s = 0;
    for (let k = 0; k < m.length; k++) {
${make}
      let q = 0;
      for (let r = 0; r < diff.length; r++) {
        let z = diff[r] + 0.5 * xi[r];
        for (let c = 0; c < r; c++) z += m[k][c] * diff[c];
        q += z * z;
      }
      s += Math.exp(-q);
    }
    total += Math.log(s);
  }
  return total;
}`;

describe('shadows zeroed beyond what the reversed loop reset', () => {
  it('every element written by the map: only the rest zeroed', () => {
    const code = checkedCode(program('      const diff = xi.map((v, j) => v - m[k][j]);'), 'f', [X, M]);
    expect(code).toMatch(/zeroedFor\(diffb, diff, xi\.length\)/);
  });

  it('the last element left out by the writing loop: zeroed whole', () => {
    const code = checkedCode(
      program(`      const diff = new Array<number>(xi.length).fill(0);
      for (let j = 0; j + 1 < xi.length; j++) diff[j] = xi[j] - m[k][j];`),
      'f',
      [X, M],
    );
    expect(code).toMatch(/zeroedFor\(diffb, diff\)/);
  });

  it('a loop writing the element before its own as well: zeroed whole', () => {
    const code = checkedCode(
      program(`      const diff = new Array<number>(xi.length).fill(0);
      for (let j = 0; j < xi.length; j++) {
        diff[j] = xi[j] - m[k][j];
        if (j > 0) diff[j - 1] *= 1 + 0.1 * diff[j];
      }`),
      'f',
      [X, M],
    );
    expect(code).toMatch(/zeroedFor\(diffb, diff\)/);
  });
});
