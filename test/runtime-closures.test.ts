// Closures through the runtime API (src/frontend/closures.ts, src/api/runtime.ts): a factory's closure
// differentiated with what it closes over passed in `scope`, a clear error naming a free variable left
// out, and plain JavaScript functions with local functions reading and writing their variables.
import { describe, expect, it } from 'vitest';
import { grad, jacobian } from '../src/index.js';

/** a factory: the loss closes over the data it was made with */
const makeLoss = (data: number[]) => (w: number[]) => {
  let s = 0;
  for (let i = 0; i < data.length; i++) {
    const r = w[0] * data[i] + w[1] - 2 * data[i];
    s += r * r;
  }
  return s;
};

describe('runtime API: closures', () => {
  it('a factory closure with its free variable in scope: the analytic gradient', () => {
    const data = [1, 2, 3];
    const w = [0.5, 0.1];
    // d/dw0 = Σ 2 r x, d/dw1 = Σ 2 r with r = w0 x + w1 − 2x
    const r = data.map((x) => w[0] * x + w[1] - 2 * x);
    const expected = [r.reduce((s, ri, i) => s + 2 * ri * data[i], 0), r.reduce((s, ri) => s + 2 * ri, 0)];
    const g = grad(makeLoss(data), { scope: { data } })(w) as number[];
    expect(g[0]).toBeCloseTo(expected[0], 12);
    expect(g[1]).toBeCloseTo(expected[1], 12);
  });

  it('a free variable left out of scope: one error naming it and saying to pass it in scope', () => {
    let err: unknown;
    try {
      grad(makeLoss([1, 2]))([0.5, 0.1]);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(Error);
    const text = (err as Error).message;
    expect(text.match(/'data' is a free variable/g)).toHaveLength(1); // read three times, reported once
    expect(text).toMatch(/pass it in scope: `grad\(f, \{ scope: \{ data \} \}\)`/);
  });

  it('plain JavaScript with local functions reading and writing the enclosing variables', () => {
    function energy(x: number[], k: number) {
      const sq = (v: number) => v * v;
      let total = 0;
      const add = (v: number) => {
        total += k * sq(v);
      };
      for (const v of x) add(v);
      add(total); // sees the current total
      return total;
    }
    const x = [0.3, -0.7], k = 0.8;
    const t0 = k * (x[0] ** 2 + x[1] ** 2);
    // total = t0 + k t0², so d/dx_i = (1 + 2 k t0) · 2 k x_i
    const g = grad(energy)(x, k) as number[];
    expect(g[0]).toBeCloseTo((1 + 2 * k * t0) * 2 * k * x[0], 12);
    expect(g[1]).toBeCloseTo((1 + 2 * k * t0) * 2 * k * x[1], 12);
  });

  it('a nested function declaration, hoisted, in a Jacobian', () => {
    function rot(p: number[], a: number) {
      return [turn(p[0], p[1]), turn(p[1], -p[0])];
      function turn(u: number, v: number) {
        return Math.cos(a) * u - Math.sin(a) * v;
      }
    }
    const J = jacobian(rot)([1, 2], 0.3) as number[][];
    const c = Math.cos(0.3), s = Math.sin(0.3);
    expect(J[0][0]).toBeCloseTo(c, 12);
    expect(J[0][1]).toBeCloseTo(-s, 12);
    expect(J[1][0]).toBeCloseTo(s, 12);
    expect(J[1][1]).toBeCloseTo(c, 12);
  });
});
