// Array fields loaded once before the loops that read them (src/transform/licm.ts: `self.w` in
// `self.w[t]`), in forward and backward sweeps, and left in place when a loop stores an array or an
// object (the field may then hold another array). Each program is checked in every mode at a point
// (divided differences, the dot-product test).
import { describe, expect, it } from 'vitest';
import { checkedCode } from './support/checked.js';

describe('invariant array fields', () => {
  it("a method's loops over its instance's arrays: the fields loaded once, in both sweeps", () => {
    const src = `class Layer {
  constructor(readonly w: number[], readonly b: number[]) {}
  apply(x: number[]): number {
    let s = 0;
    for (let i = 0; i < this.b.length; i++) {
      let a = this.b[i];
      for (let j = 0; j < x.length; j++) a += this.w[i * x.length + j] * x[j];
      s += Math.tanh(a);
    }
    return s;
  }
}
export function f(w: number[], b: number[], x: number[]): number {
  const layer = new Layer(w, b);
  return layer.apply(x) * layer.apply(x.map((v) => v * v));
}`;
    const code = checkedCode(src, 'f', [[0.1, -0.2, 0.3, 0.4, -0.5, 0.6], [0.05, -0.1], [0.7, -0.3, 1.2]]);
    const fwd = code.slice(code.indexOf('function Layer_apply_fwd'), code.indexOf('function Layer_apply_bwd'));
    const bwd = code.slice(code.indexOf('function Layer_apply_bwd'));
    expect(fwd).toMatch(/const self_w\d* = self\.w;/);
    expect(bwd.slice(0, bwd.indexOf('\n}\n'))).toMatch(/const selfb_w\d* = selfb\.w;/);
  });

  it('a loop that stores an array into a field: the field read where it stands', () => {
    const src = `class Acc {
  cur: number[];
  constructor(init: number[]) {
    this.cur = init.slice();
  }
}
export function f(x: number[], y: number[]): number {
  const acc = new Acc(x);
  let s = 0;
  for (let k = 0; k < 4; k++) {
    s += acc.cur[k % acc.cur.length] * (k + 1);
    // (the field holds another array from here on)
    const next = k % 2 === 0 ? y : x;
    acc.cur = next;
  }
  return s;
}`;
    const code = checkedCode(src, 'f', [[0.3, -0.7, 1.1], [2.0, 0.5, -1.5]]);
    // (inside the loop over k, ahead of an inner loop that stores no reference, it may be)
    for (const fn of code.split('export function ')) expect(fn).not.toMatch(/const acc_cur\d* = acc\.cur;[^]*for \((let )?k = 0/);
  });
});
