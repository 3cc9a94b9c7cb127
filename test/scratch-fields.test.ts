// Scratch fields (src/analysis/scratch-fields.ts): an instance's own arrays whose contents every method
// writes before it reads them. Their adjoint records nothing for callers and hands its own contents
// over; everything that falls short of the rule keeps the ordinary, restoring adjoint. Each program is
// checked in every mode at a point (checkCompiled: divided differences, dot-product test), with
// several calls and instances, so that a value carried from one call to the next would show.
import { describe, expect, it } from 'vitest';
import { hessian } from '../src/index.js';
import { checkedCode } from './support/checked.js';

const HANDOVER = /scratch contents handed over/;

const compiled = checkedCode;

/** a method with a scratch buffer: killed by its first loop, read below the same bound after */
const FEATURE = `class Feature {
  readonly w: number[];
  private readonly tmp: Float64Array;
  private readonly sq: number[];
  constructor(w: number[]) {
    this.w = w;
    this.tmp = new Float64Array(w.length);
    this.sq = new Array(w.length).fill(0);
  }
  score(x: number[]): number {
    const n = this.w.length;
    const t = this.tmp;
    const q = this.sq;
    for (let j = 0; j < n; j++) {
      t[j] = this.w[j] * x[j];
      q[j] = t[j] * t[j];
    }
    for (let c = 0; c < n; c++) {
      for (let r = c + 1; r < n; r++) {
        t[r] += 0.5 * t[c] * q[c];
      }
    }
    // an element overwritten after the backward sweep of an earlier statement read it
    for (let j = 0; j < n; j++) q[j] = Math.sin(q[j]) * t[j];
    let s = 0;
    for (let j = 0; j < n; j++) s += Math.cos(t[j]) * q[j];
    return s;
  }
}
`;

const X = [
  [0.3, -0.2, 0.5],
  [0.1, 0.4, -0.3],
  [-0.5, 0.2, 0.25],
];

describe('scratch fields', () => {
  it('a method killing its buffers first: no restoring pushes, contents handed over, right in every mode', () => {
    const code = compiled(
      `${FEATURE}
export function total(w: number[], v: number[], xs: number[][]): number {
  const f = new Feature(w);
  const g = new Feature(v);
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += f.score(xs[i]) * g.score(xs[i]) + f.score(xs[(i + 1) % xs.length]);
  return s;
}`,
      'total',
      [[0.7, -0.4, 1.1], [0.2, 0.9, -0.6], X],
    );
    expect(code).toMatch(HANDOVER);
  });

  it('an instance given to the head: its scratch adjoints start and end at zero, whatever the seeds; right in every mode', () => {
    // (the backward sweep takes the adjoint of a scratch buffer to be zero on entry: an increment before
    // any write assigns, a reset of what the sweep never wrote goes)
    const src = `${FEATURE}
export function twice(f: Feature, x: number[]): number {
  return f.score(x) * f.score(x.map((v) => -v)) + f.score(x);
}`;
    const inst = () => ({ w: [0.7, -0.4, 1.1], tmp: new Float64Array(3), sq: [0, 0, 0] });
    const code = compiled(src, 'twice', [inst(), X[0]]);
    // (the first reversed loop assigns the scratch adjoints where it added into them before)
    expect(code).toMatch(/\bqb\[j\d*\] = temp\d* \* sb;/);
    expect(code).not.toMatch(/\bqb\[j\d*\] \+= temp\d* \* sb;/);
  });

  it('the Hessian through a scratch buffer agrees with differences of the gradient', () => {
    class Feature {
      w: number[];
      tmp: Float64Array;
      constructor(w: number[]) {
        this.w = w;
        this.tmp = new Float64Array(w.length);
      }
      score(x: number[]): number {
        const n = this.w.length;
        const t = this.tmp;
        for (let j = 0; j < n; j++) t[j] = this.w[j] * x[j];
        let s = 0;
        for (let j = 0; j < n; j++) s += Math.sin(t[j]) * t[j];
        return s;
      }
    }
    const f = (w: number[], xs: number[][]) => {
      const a = new Feature(w);
      let s = 0;
      for (let i = 0; i < xs.length; i++) s += a.score(xs[i]) * a.score(xs[xs.length - 1 - i]);
      return s;
    };
    const H = hessian(f, { scope: { Feature }, wrt: ['w'] });
    const w = [0.7, -0.4, 1.1];
    const got = H(w, X) as number[][];
    const g = (ww: number[]) => {
      const h = 1e-5;
      return ww.map((_, k) => {
        const p = ww.slice(), m = ww.slice();
        p[k] += h;
        m[k] -= h;
        return (f(p, X) - f(m, X)) / (2 * h);
      });
    };
    for (let k = 0; k < 3; k++) {
      const p = w.slice(), m = w.slice();
      p[k] += 1e-4;
      m[k] -= 1e-4;
      const gp = g(p), gm = g(m);
      for (let j = 0; j < 3; j++) expect(got[j][k]).toBeCloseTo((gp[j] - gm[j]) / 2e-4, 4);
    }
  });

  describe('not scratch: contents that pass from one call to another keep the restoring adjoint', () => {
    const use = (cls: string, total: string) => `${cls}
export function total(w: number[], xs: number[][]): number {
${total}
}`;
    const args = [[0.7, -0.4, 1.1], X];

    it('a method reading past the bound it wrote below', () => {
      const code = compiled(
        use(
          `class Acc {
  buf: Float64Array;
  constructor(n: number) { this.buf = new Float64Array(n); }
  load(x: number[]): void { const b = this.buf; const n = x.length; for (let j = 0; j < n; j++) b[j] = x[j] * x[j]; }
  head(x: number[], m: number): number {
    const b = this.buf;
    for (let j = 0; j < m; j++) b[j] = 2 * x[j];
    const n = b.length;
    let s = 0;
    for (let j = 0; j < n; j++) s += b[j] * b[j];
    return s;
  }
}`,
          `  const a = new Acc(w.length);
  let s = 0;
  for (let i = 0; i < xs.length; i++) {
    a.load(xs[i].map((v, k) => v * w[k]));
    s += a.head(w, 1);
  }
  return s;`,
        ),
        'total',
        args,
      );
      expect(code).not.toMatch(HANDOVER);
    });

    it('a method adding into its buffer before writing it', () => {
      const code = compiled(
        use(
          `class Acc {
  buf: Float64Array;
  constructor(n: number) { this.buf = new Float64Array(n); }
  add(x: number[]): number {
    const b = this.buf;
    const n = x.length;
    for (let j = 0; j < n; j++) b[j] += x[j] * x[j];
    let s = 0;
    for (let j = 0; j < n; j++) s += Math.sin(b[j]);
    return s;
  }
}`,
          `  const a = new Acc(w.length);
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += a.add(xs[i].map((v, k) => v * w[k]));
  return s;`,
        ),
        'total',
        args,
      );
      expect(code).not.toMatch(HANDOVER);
    });

    it('a function writing one instance and reading another', () => {
      const code = compiled(
        use(
          `class Acc {
  buf: Float64Array;
  constructor(n: number) { this.buf = new Float64Array(n); }
}
function swapIn(p: Acc, q: Acc, x: number[]): number {
  const b = p.buf;
  const c = q.buf;
  const n = x.length;
  for (let j = 0; j < n; j++) b[j] = x[j] * 3;
  let s = 0;
  for (let j = 0; j < n; j++) s += c[j] * c[j] + b[j];
  return s;
}`,
          `  const a = new Acc(w.length);
  const b = new Acc(w.length);
  let s = 0;
  for (let i = 0; i < xs.length; i++) {
    s += swapIn(a, b, xs[i].map((v, k) => v * w[k]));
    s += swapIn(b, a, xs[i].map((v, k) => v / w[k]));
  }
  return s;`,
        ),
        'total',
        args,
      );
      expect(code).not.toMatch(HANDOVER);
    });

    it('a method calling a helper between its writes and reads, or passing the buffer on', () => {
      const code = compiled(
        use(
          `function scaleAll(v: Float64Array, k: number): void { for (let j = 0; j < v.length; j++) v[j] *= k; }
function norm2(v: Float64Array): number { let s = 0; for (let j = 0; j < v.length; j++) s += v[j] * v[j]; return s; }
class Acc {
  buf: Float64Array;
  other: Float64Array;
  constructor(n: number) { this.buf = new Float64Array(n); this.other = new Float64Array(n); }
  run(x: number[]): number {
    const b = this.buf;
    const n = x.length;
    for (let j = 0; j < n; j++) b[j] = x[j] * x[j];
    scaleAll(this.other, 2);
    let s = 0;
    for (let j = 0; j < n; j++) s += b[j] * this.other[j];
    return s;
  }
  fill(x: number[]): number { const o = this.other; for (let j = 0; j < x.length; j++) o[j] = x[j]; return norm2(o); }
}`,
          `  const a = new Acc(w.length);
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += a.fill(xs[i].map((v, k) => v * w[k])) + a.run(w);
  return s;`,
        ),
        'total',
        args,
      );
      expect(code).not.toMatch(HANDOVER);
    });
  });

  it('an update of one scratch array from another and from a field: no element of its own read, no temporary', () => {
    const code = compiled(
      `class Tri {
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
      z[j] = Math.sin(diff[j]);
    }
    let t = 0;
    for (let c = 0; c < d; c++) {
      for (let r = c + 1; r < d; r++) {
        z[r] += this.low[t] * diff[c];
        t++;
      }
    }
    let s = 0;
    for (let j = 0; j < d; j++) s += z[j] * z[j] * diff[j];
    return s;
  }
}
export function total(m: number[], low: number[], xs: number[][]): number {
  const g = new Tri(m, low);
  let s = 0;
  for (let i = 0; i < xs.length; i++) s = s * 0.9 + g.value(xs[i]);
  return s;
}`,
      'total',
      [[0.7, -0.4, 1.1], [0.2, 0.9, -0.6], X],
    );
    // (the adjoint of z[r] += … keeps zb[r] as it is: no copy out and back)
    expect(code).not.toMatch(/zb\[r\] = tempb/);
    expect(code).toMatch(HANDOVER);
  });
});
