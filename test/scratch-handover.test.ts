// Scratch handover elision (src/analysis/scratch-handover.ts): a method's scratch contents stay where
// its forward sweep left them, without a handover on the tape, when one host calls it once per element
// of an array of distinct instances and the host's two sweeps run back to back (a fused reduction's
// iteration). Every case is checked in every mode at a point (divided differences, the dot-product
// test) with several points and components, so that contents clobbered between the sweeps would show;
// each way the precondition fails keeps the handover.
import { describe, expect, it } from 'vitest';
import { checkedCode } from './support/checked.js';

const HANDOVER = /scratch contents handed over/;

/** a component with two scratch buffers, the second updated in a triangle from the first */
const TERM = `class Term {
  private readonly diff: Float64Array;
  private readonly z: Float64Array;
  constructor(readonly mean: number[], readonly low: number[]) {
    this.diff = new Float64Array(mean.length);
    this.z = new Float64Array(mean.length);
  }
  value(x: number[]): number {
    const d = this.mean.length;
    const diff = this.diff;
    const z = this.z;
    for (let j = 0; j < d; j++) {
      diff[j] = x[j] - this.mean[j];
      z[j] = Math.sin(diff[j]) * diff[j];
    }
    let t = 0;
    for (let c = 0; c < d; c++) {
      for (let r = c + 1; r < d; r++) {
        z[r] += this.low[t] * diff[c] * z[c];
        t++;
      }
    }
    let s = 0;
    for (let j = 0; j < d; j++) s += z[j] * z[j];
    return -0.5 * s;
  }
}
`;

const MIX = (pushes: string, body: string) => `${TERM}
class Mix {
  readonly terms: Term[] = [];
  constructor(mu: number[][], l: number[][]) {
    for (let k = 0; k < mu.length; k++) {
${pushes}
    }
  }
  ll(x: number[]): number {
${body}
  }
}
`;

const PUSH = '      this.terms.push(new Term(mu[k], l[k]));';
const MAP_LSE = `    const v = this.terms.map((g) => g.value(x));
    let m = v[0];
    for (let k = 1; k < v.length; k++) if (v[k] > m) m = v[k];
    let s = 0;
    for (let k = 0; k < v.length; k++) s += Math.exp(v[k] - m);
    return m + Math.log(s);`;

const SUM_POINTS = `export function f(mu: number[][], l: number[][], x: number[][]): number {
  const mix = new Mix(mu, l);
  let s = 0;
  for (let i = 0; i < x.length; i++) s += mix.ll(x[i]);
  return s;
}`;

const MU = [
  [0.2, -0.4, 0.9],
  [-0.3, 0.8, 0.05],
  [0.7, 0.15, -0.5],
];
const L = [
  [0.3, -0.2, 0.5],
  [0.1, 0.4, -0.3],
  [-0.5, 0.2, 0.25],
];
const X = [
  [0.3, -0.7, 1.1],
  [-0.2, 0.5, 0.8],
  [0.9, 0.1, -0.4],
  [0.45, -0.3, 0.2],
];

describe('scratch handover elision', () => {
  it('a host mapping the method over distinct components, called once per fused iteration: no handover', () => {
    const code = checkedCode(MIX(PUSH, MAP_LSE) + SUM_POINTS, 'f', [MU, L, X]);
    expect(code).not.toMatch(HANDOVER);
    expect(code).toMatch(/fused reduction/);
  });

  it('the host called twice in a row outside a fused iteration: handed over', () => {
    const code = checkedCode(
      MIX(PUSH, MAP_LSE) +
        `export function f(mu: number[][], l: number[][], x: number[][]): number {
  const mix = new Mix(mu, l);
  const a = mix.ll(x[0]);
  const b = mix.ll(x[1]);
  return a * b + Math.sin(a);
}`,
      'f',
      [MU, L, X],
    );
    expect(code).toMatch(HANDOVER);
  });

  it('a loop that is not a reduction (each point scales the product): handed over', () => {
    const code = checkedCode(
      MIX(PUSH, MAP_LSE) +
        `export function f(mu: number[][], l: number[][], x: number[][]): number {
  const mix = new Mix(mu, l);
  let p = 1;
  for (let i = 0; i < x.length; i++) p = p * mix.ll(x[i]) + 0.1;
  return p;
}`,
      'f',
      [MU, L, X],
    );
    expect(code).toMatch(HANDOVER);
  });

  it('one instance pushed twice (the elements are not distinct): handed over', () => {
    const code = checkedCode(
      MIX(
        `      const t = new Term(mu[k], l[k]);
      this.terms.push(t);
      this.terms.push(t);`,
        MAP_LSE,
      ) + SUM_POINTS,
      'f',
      [MU, L, X],
    );
    expect(code).toMatch(HANDOVER);
  });

  it('an element replaced by another (two slots holding one instance): handed over', () => {
    const code = checkedCode(
      MIX(PUSH, `    this.terms[0] = this.terms[this.terms.length - 1];\n${MAP_LSE}`) + SUM_POINTS,
      'f',
      [MU, L, X],
    );
    expect(code).toMatch(HANDOVER);
  });

  it('the method called twice per element in the host: handed over', () => {
    const code = checkedCode(
      MIX(
        PUSH,
        `    let s = 0;
    for (let k = 0; k < this.terms.length; k++) {
      const g = this.terms[k];
      s += g.value(x) * Math.cos(g.value(this.terms[0].mean));
    }
    return s;`,
      ) + SUM_POINTS,
      'f',
      [MU, L, X],
    );
    expect(code).toMatch(HANDOVER);
  });

  it('the method called again in a condition beside the call: handed over', () => {
    const code = checkedCode(
      MIX(
        PUSH,
        `    let s = 0;
    for (let k = 0; k < this.terms.length; k++) {
      const g = this.terms[k];
      const v = g.value(x);
      if (g.value(this.terms[0].mean) > v) s += Math.exp(v);
      else s += Math.exp(2 * v);
    }
    return Math.log(s);`,
      ) + SUM_POINTS,
      'f',
      [MU, L, X],
    );
    expect(code).toMatch(HANDOVER);
  });

  it('a field of the same name on another class (it could be a subclass\'s): handed over', () => {
    const code = checkedCode(
      MIX(PUSH, MAP_LSE) +
        `class Other {
  readonly diff: Float64Array;
  constructor(n: number) {
    this.diff = new Float64Array(n);
  }
}
export function f(mu: number[][], l: number[][], x: number[][]): number {
  const mix = new Mix(mu, l);
  const o = new Other(3);
  let s = 0;
  for (let i = 0; i < x.length; i++) s += mix.ll(x[i]);
  return s + o.diff.length;
}`,
      'f',
      [MU, L, X],
    );
    expect(code).toMatch(HANDOVER);
  });

  it('the host looping over the components twice: handed over', () => {
    const code = checkedCode(
      MIX(
        PUSH,
        `    let s = 0;
    for (let r = 0; r < 2; r++) {
      for (let k = 0; k < this.terms.length; k++) s += Math.exp(this.terms[k].value(x) * (r + 1));
    }
    return Math.log(s);`,
      ) + SUM_POINTS,
      'f',
      [MU, L, X],
    );
    expect(code).toMatch(HANDOVER);
  });

  it('the method also called by the head (two callers): handed over', () => {
    const code = checkedCode(
      MIX(PUSH, MAP_LSE) +
        `export function f(mu: number[][], l: number[][], x: number[][]): number {
  const mix = new Mix(mu, l);
  let s = 0;
  for (let i = 0; i < x.length; i++) s += mix.ll(x[i]);
  return s * mix.terms[1].value(x[0]);
}`,
      'f',
      [MU, L, X],
    );
    expect(code).toMatch(HANDOVER);
  });
});
