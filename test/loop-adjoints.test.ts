// Selection loops (argmin/argmax scans): the forward sweep keeps only the index of the last taken
// iteration, the backward sweep re-runs and reverses that iteration alone. Gradients must equal the
// recording adjoint's (recompute: false) and pass the divided-difference and dot-product checks.
import { describe, expect, it } from 'vitest';
import { checkCompiled } from '../src/api/check.js';
import { compile } from '../src/api/compile.js';
import { loadGenerated } from '../src/api/load.js';
import { formatDiagnostic } from '../src/frontend/diagnostics.js';
import { Tape } from '../src/runtime/tape.js';

type Fn = (...a: unknown[]) => unknown;

const CASES: { name: string; src: string; args: unknown[]; selection: boolean }[] = [
  {
    name: 'max shift of a log-sum-exp',
    src: `export function lse(x: number[]): number {
  let a = x[0];
  for (let i = 1; i < x.length; i++) {
    if (x[i] > a) a = x[i];
  }
  let s = 0;
  for (let i = 0; i < x.length; i++) s += Math.exp(x[i] - a);
  return a + Math.log(s);
}`,
    args: [[0.3, 1.7, -0.2, 1.1, 1.69, 0.4]],
    selection: true,
  },
  {
    name: 'nearest centroid through a call, index kept, inside an outer loop',
    src: `function dist2(p: number[], c: number[]): number {
  let s = 0;
  for (let u = 0; u < p.length; u++) {
    const t = p[u] - c[u];
    s += t * t;
  }
  return s;
}
export function cost(c: number[][], p: number[][], w: number[]): number {
  let total = 0;
  for (let i = 0; i < p.length; i++) {
    let best = dist2(p[i], c[0]);
    let arg = 0;
    for (let j = 1; j < c.length; j++) {
      const d = dist2(p[i], c[j]) * w[j];
      if (d < best) {
        best = d;
        arg = j;
      }
    }
    total += best * (arg + 1);
  }
  return total;
}`,
    args: [
      [[0.1, 0.2], [1.5, -0.3], [-0.8, 0.9]],
      [[0.0, 0.1], [1.2, -0.5], [-1.0, 1.1], [0.4, 0.4], [2.0, 0.0]],
      [1, 0.9, 1.2],
    ],
    selection: true,
  },
  {
    name: 'the selected value before the loop is needed by the backward sweep (saved around the loop)',
    src: `export function f(x: number[], y: number): number {
  let m = y * y;
  const before = Math.sin(m);
  for (let i = 0; i < x.length; i++) {
    const v = x[i] * y;
    if (v > m) m = v;
  }
  return m * before;
}`,
    args: [[0.2, 0.9, 0.5], 0.8],
    selection: true,
  },
  {
    name: 'not a selection: the branch reads the selected value (plain recording adjoint)',
    src: `export function g(x: number[]): number {
  let a = 0;
  for (let i = 0; i < x.length; i++) {
    if (x[i] > 0.5) a = a * 0.5 + x[i];
  }
  return a;
}`,
    args: [[0.7, 0.2, 0.9, 0.6]],
    selection: false,
  },
];

describe('selection loops', () => {
  it("the first candidate's adjoint runs only when no iteration was taken; the re-run skips a call whose result its reversal does not read", () => {
    const src = `function dist2(p: number[], c: number[]): number {
  let s = 0;
  for (let u = 0; u < p.length; u++) {
    const t = p[u] - c[u];
    s += t * t;
  }
  return s;
}
export function cost(c: number[][], p: number[][]): number {
  let total = 0;
  for (let i = 0; i < p.length; i++) {
    let best = dist2(p[i], c[0]);
    for (let j = 1; j < c.length; j++) {
      const d = dist2(p[i], c[j]);
      if (d < best) best = d;
    }
    total += best;
  }
  return total;
}`;
    // (a reduction over the points is otherwise fused: each point's adjoint right after the point)
    const r = compile(src, { head: 'cost', wrt: ['c'], js: false, runtimeImport: 'tsad/runtime', modes: ['reverse'], adjoint: { tbr: true, fuseReductions: false } });
    const bwd = r.code.slice(r.code.indexOf('function cost_bwd'), r.code.indexOf('function cost_b('));
    // dist2's forward sweep records nothing: not called again to rebuild a tape nobody reads
    expect(bwd).not.toMatch(/dist2_fwd/);
    expect(bwd).toMatch(/if \(jTaken !== -1\) \{[^]*dist2_bwd[^]*\} else \{[^]*dist2_bwd[^]*\}/);
    const c = [[0.1, 0.2], [1.5, -0.3], [-0.8, 0.9]];
    const p = [[0.0, 0.1], [1.2, -0.5], [-1.0, 1.1], [0.4, 0.4], [2.0, 0.0]];
    const grad = (code: string) => {
      const cb = c.map((row) => row.map(() => 0));
      (loadGenerated(code) as Record<string, Fn>).cost_b(c, cb, p, 1);
      return cb;
    };
    const on = compile(src, { head: 'cost', wrt: ['c'], js: true, runtimeImport: null, modes: ['reverse'], adjoint: { tbr: true, fuseReductions: false } });
    const off = compile(src, { head: 'cost', wrt: ['c'], js: true, runtimeImport: null, modes: ['reverse'], adjoint: { tbr: true, recompute: false } });
    expect(grad(on.code)).toEqual(grad(off.code));
    const full = compile(src, { head: 'cost', wrt: ['c'], js: true, runtimeImport: null });
    expect(checkCompiled(full, full.code, 'cost', [c, p], { seed: 2 }).messages).toEqual([]);
  });
  for (const c of CASES) {
    it(`${c.name}: ${c.selection ? 'one iteration reversed' : 'recorded per iteration'}, same gradient as the recording adjoint`, () => {
      const head = /export function (\w+)/.exec(c.src)![1];
      const on = compile(c.src, { head, js: true, runtimeImport: null, modes: ['reverse'] });
      const off = compile(c.src, { head, js: true, runtimeImport: null, modes: ['reverse'], adjoint: { tbr: true, recompute: false } });
      expect(on.diagnostics.map(formatDiagnostic)).toEqual([]);
      if (c.selection) expect(on.code).toMatch(/\$ad selection loop/);
      else expect(on.code).not.toMatch(/\$ad selection loop/);
      expect(off.code).not.toMatch(/\$ad selection loop/);
      const grad = (code: string) => {
        const m = loadGenerated(code) as Record<string, Fn>;
        const clone = (v: unknown): unknown => (Array.isArray(v) ? v.map(clone) : v);
        const zero = (v: unknown): unknown => (Array.isArray(v) ? v.map(zero) : 0);
        const args: unknown[] = [];
        const outs: unknown[] = [];
        for (const a of c.args) {
          args.push(clone(a));
          if (Array.isArray(a)) {
            const b = zero(a);
            args.push(b);
            outs.push(b);
          }
        }
        const scalars = m[`${head}_b`](...args, 1);
        return { outs, scalars };
      };
      expect(grad(on.code)).toEqual(grad(off.code));
      const full = compile(c.src, { head, js: true, runtimeImport: null });
      const rep = checkCompiled(full, full.code, head, c.args, { seed: 5 });
      expect(rep.messages).toEqual([]);
    });
  }
});

/** floats and ints the forward sweep leaves on the tape for the backward sweep */
function tapeEntries(code: string, head: string, args: unknown[]): number {
  const m = loadGenerated(code) as Record<string, Fn>;
  const withAdjoints: unknown[] = [];
  for (const a of args) {
    withAdjoints.push(a);
    if (Array.isArray(a)) withAdjoints.push(a.map(() => 0));
  }
  // (every array argument is an independent here)
  const tape = Tape.acquire();
  m[`${head}_fwd`](tape, ...withAdjoints);
  const n = tape.heights.floats + tape.heights.ints;
  m[`${head}_bwd`](tape, ...withAdjoints, 1);
  expect(tape.empty).toBe(true);
  Tape.release(tape);
  return n;
}

describe('forward-order backward loops', () => {
  const POLY = `export function fit(x: number[], n: number): number {
  const m = x.length;
  let y = 0;
  for (let i = 0; i < n; i++) {
    const t = -1 + (i * 2) / (n - 1);
    let r = Math.sign(t);
    let power = 1;
    for (let j = 0; j < m; j++) {
      r -= x[j] * power;
      power *= t;
    }
    y += r * r;
  }
  return y / 2;
}`;
  it('a running power is computed again forwards instead of recorded per iteration; same gradient bits', () => {
    // n is passive (the degree and the points are data): the powers of t carry no derivative
    const on = compile(POLY, { head: 'fit', wrt: ['x'], js: true, runtimeImport: null, modes: ['reverse'], adjoint: { tbr: true, fuseReductions: false } });
    const off = compile(POLY, { head: 'fit', wrt: ['x'], js: true, runtimeImport: null, modes: ['reverse'], adjoint: { tbr: true, recompute: false } });
    expect(on.code).toMatch(/\$ad forward-order adjoint loop/);
    const x = [0.3, -1.2, 0.8, 0.05, -0.4, 0.9];
    const n = 33; // t = 0 exactly at i = 16
    // per outer iteration a few values, none per inner iteration
    expect(tapeEntries(on.code, 'fit', [x, n])).toBeLessThan(4 * n);
    expect(tapeEntries(off.code, 'fit', [x, n])).toBeGreaterThan(x.length * n);
    const grad = (code: string) => {
      const xb = x.map(() => 0);
      (loadGenerated(code) as Record<string, Fn>).fit_b(x, xb, n, 1);
      return xb;
    };
    expect(grad(on.code)).toEqual(grad(off.code));
    const full = compile(POLY, { head: 'fit', wrt: ['x'], js: true, runtimeImport: null });
    expect(checkCompiled(full, full.code, 'fit', [x, n], { seed: 1 }).messages).toEqual([]);
  });
  it('is not used when reversed iterations depend on each other (a running product of active values)', () => {
    const src = `export function prod(x: number[]): number {
  let p = 1;
  let s = 0;
  for (let j = 0; j < x.length; j++) {
    s += x[j] * p;
    p *= x[j];
  }
  return s;
}`;
    const on = compile(src, { head: 'prod', js: true, runtimeImport: null });
    expect(on.code).not.toMatch(/\$ad forward-order/);
    expect(checkCompiled(on, on.code, 'prod', [[0.5, 1.5, -0.7, 2]], { seed: 1 }).messages).toEqual([]);
  });
});

describe('transcendental values recorded instead of evaluated twice', () => {
  it('exp in a sum is pushed by the forward sweep and popped by the backward sweep; same gradient bits', () => {
    const src = `export function softsum(x: number[], a: number): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += Math.exp(x[i] - a) * Math.sin(x[i]);
  return Math.log(s);
}`;
    const on = compile(src, { head: 'softsum', js: true, runtimeImport: null, modes: ['reverse'] });
    const off = compile(src, { head: 'softsum', js: true, runtimeImport: null, modes: ['reverse'], adjoint: { tbr: true, recompute: false } });
    const bwd = (code: string) => code.slice(code.indexOf('function softsum_bwd'), code.indexOf('function softsum_b('));
    expect(bwd(on.code)).not.toMatch(/Math\.exp|Math\.sin/);
    expect(bwd(off.code)).toMatch(/Math\.exp/);
    const x = [0.2, 1.4, -0.3, 0.9];
    const grad = (code: string) => {
      const xb = x.map(() => 0);
      const ab = (loadGenerated(code) as Record<string, Fn>).softsum_b(x, xb, 0.5, 1);
      return [xb, ab];
    };
    expect(grad(on.code)).toEqual(grad(off.code));
    const full = compile(src, { head: 'softsum', js: true, runtimeImport: null });
    expect(checkCompiled(full, full.code, 'softsum', [x, 0.5], { seed: 1 }).messages).toEqual([]);
  });
});

describe('static tape', () => {
  const SRC = `export function lse(x: number[]): number {
  let a = x[0];
  for (let i = 1; i < x.length; i++) if (x[i] > a) a = x[i];
  let s = 0;
  for (let i = 0; i < x.length; i++) s += Math.exp(x[i] - a);
  return a + Math.log(s);
}`;
  it('values a counted loop records go to one buffer indexed by iteration; same gradient bits, same count, empty tape', () => {
    const on = compile(SRC, { head: 'lse', js: true, runtimeImport: null, modes: ['reverse'] });
    const off = compile(SRC, { head: 'lse', js: true, runtimeImport: null, modes: ['reverse'], adjoint: { tbr: true, staticTape: false } });
    expect(on.code).toMatch(/tape\.bufF\(/);
    expect(on.code).toMatch(/tape\.freeF\(/);
    expect(off.code).not.toMatch(/bufF/);
    const x = [0.3, 1.7, -0.2, 1.1, 1.69, 0.4, 2.2, -1.0];
    // the recorded values are counted alike (one float per iteration)
    expect(tapeEntries(on.code, 'lse', [x])).toBe(tapeEntries(off.code, 'lse', [x]));
    const grad = (code: string) => {
      const xb = x.map(() => 0);
      (loadGenerated(code) as Record<string, Fn>).lse_b(x, xb, 1);
      return xb;
    };
    // twice: the second run takes the buffer the first gave back
    expect(grad(on.code)).toEqual(grad(off.code));
    expect(grad(on.code)).toEqual(grad(off.code));
    const full = compile(SRC, { head: 'lse', js: true, runtimeImport: null });
    expect(checkCompiled(full, full.code, 'lse', [x], { seed: 1 }).messages).toEqual([]);
  });
  it('a buffer given back is taken again by any request of its power-of-two class', () => {
    const t = Tape.acquire();
    const a = t.bufF(100);
    expect(a.length).toBe(128);
    t.freeF(a);
    const b = t.bufF(65);
    expect(b).toBe(a);
    expect(t.heights.floats).toBe(65);
    t.freeF(b);
    expect(t.empty).toBe(true);
    Tape.release(t);
  });
  it('its code differentiates again (forward over reverse) with the buffer as a fresh array', () => {
    const first = compile(SRC, { head: 'lse', js: false, runtimeImport: 'tsad/runtime', modes: ['reverse'] });
    const second = compile({ 'lse_ad.ts': first.code }, { head: 'lse_b', wrt: ['x'], of: ['xb'], js: true, runtimeImport: null, modes: ['tangent'] });
    expect(second.diagnostics.map(formatDiagnostic)).toEqual([]);
    expect(second.code).not.toMatch(/bufF|freeF/);
    expect(second.code).toMatch(/new Float64Array/);
  });
});

describe('elements only a callee length reads', () => {
  it("are not recorded when overwritten: the callee's backward sweep reads the array's length, not its values", () => {
    const src = `function lse(v: number[]): number {
  let m = v[0];
  for (let i = 1; i < v.length; i++) if (v[i] > m) m = v[i];
  let s = 0;
  for (let i = 0; i < v.length; i++) s += Math.exp(v[i] - m);
  return m + Math.log(s);
}
export function f(x: number[][]): number {
  const v = new Array<number>(x[0].length).fill(0);
  let t = 0;
  for (let i = 0; i < x.length; i++) {
    for (let k = 0; k < v.length; k++) v[k] = x[i][k] * 2;
    t += lse(v);
  }
  return t;
}`;
    const on = compile(src, { head: 'f', js: true, runtimeImport: null, modes: ['reverse'] });
    const off = compile(src, { head: 'f', js: true, runtimeImport: null, modes: ['reverse'], adjoint: { tbr: false } });
    expect(on.code).not.toMatch(/tape\.pushF\(v\[k\]\)/);
    expect(off.code).toMatch(/tape\.pushF\(v\[k\]\)/);
    const x = [[0.1, 0.7, -0.3], [1.2, 0.4, 0.4], [-0.5, 0.2, 0.9]];
    const grad = (code: string) => {
      const xb = x.map((r) => r.map(() => 0));
      (loadGenerated(code) as Record<string, Fn>).f_b(x, xb, 1);
      return xb;
    };
    expect(grad(on.code)).toEqual(grad(off.code));
    const full = compile(src, { head: 'f', js: true, runtimeImport: null });
    expect(checkCompiled(full, full.code, 'f', [x], { seed: 4 }).messages).toEqual([]);
  });
});

describe('scratch prefix: recomputed when short, recorded when long', () => {
  const SRC = `export function quad(l: number[], x: number[][], mu: number[]): number {
  const d = mu.length;
  const diff = new Float64Array(d);
  const q = new Float64Array(d);
  let total = 0;
  for (let i = 0; i < x.length; i++) {
    for (let j = 0; j < d; j++) {
      diff[j] = x[i][j] - mu[j];
      q[j] = diff[j];
    }
    let t = 0;
    for (let c = 0; c < d; c++) {
      for (let r = c + 1; r < d; r++) {
        q[r] += l[t] * diff[c];
        t++;
      }
    }
    let s = 0;
    for (let j = 0; j < d; j++) s += q[j] * q[j];
    total += Math.log(1 + s);
  }
  return total;
}`;
  for (const d of [6, 24]) {
    it(`d = ${d}: ${d > 16 ? 'the final scratch values are recorded' : 'the prefix runs again'}; same gradient bits as the recording adjoint`, () => {
      // (the loop over points is a reduction: reversed here, not fused, to exercise the scratch prefix)
      const on = compile(SRC, { head: 'quad', js: true, runtimeImport: null, modes: ['reverse'], adjoint: { tbr: true, fuseReductions: false } });
      const off = compile(SRC, { head: 'quad', js: true, runtimeImport: null, modes: ['reverse'], adjoint: { tbr: true, recompute: false } });
      expect(on.code).toMatch(/\$ad scratch recorded when longer than 16/);
      let seed = d;
      const rnd = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) - 0.5;
      const l = Array.from({ length: (d * (d - 1)) / 2 }, () => 0.3 * rnd());
      const x = Array.from({ length: 5 }, () => Array.from({ length: d }, rnd));
      const mu = Array.from({ length: d }, rnd);
      const run = (code: string) => {
        const m = loadGenerated(code) as Record<string, Fn>;
        const lb = l.map(() => 0), xb = x.map((r) => r.map(() => 0)), mub = mu.map(() => 0);
        const tape = Tape.acquire();
        m.quad_fwd(tape, l, lb, x, xb, mu, mub);
        const floats = tape.heights.floats;
        m.quad_bwd(tape, l, lb, x, xb, mu, mub, 1);
        expect(tape.empty).toBe(true);
        Tape.release(tape);
        return { floats, grad: [lb, xb, mub] };
      };
      const a = run(on.code), b = run(off.code);
      expect(a.grad).toEqual(b.grad);
      // recorded: the two scratch arrays and the counter per iteration; recomputed: nearly nothing
      if (d > 16) expect(a.floats).toBeGreaterThanOrEqual(5 * (2 * d + 1));
      else expect(a.floats).toBeLessThan(5 * d);
      const full = compile(SRC, { head: 'quad', js: true, runtimeImport: null });
      expect(checkCompiled(full, full.code, 'quad', [l, x, mu], { seed: 6 }).messages).toEqual([]);
    });
  }
});

describe('fused reduction loops', () => {
  // a sum over data points of a term with inner loops: each point's adjoint runs right after the
  // point with a unit seed; the backward sweep only scales by the sum's adjoint
  const SRC = `export function nll(w: number[][], b: number[], x: number[][], y: number[]): number {
  const k = b.length;
  const d = x[0].length;
  const z = new Float64Array(k);
  let total = 0;
  for (let i = 0; i < x.length; i++) {
    const xi = x[i];
    for (let c = 0; c < k; c++) {
      let s = b[c];
      for (let j = 0; j < d; j++) s += w[c][j] * xi[j];
      z[c] = Math.tanh(s);
    }
    let e = 0;
    for (let c = 0; c < k; c++) e += (z[c] - y[i]) * (z[c] - y[i]);
    total += Math.log(1 + e);
  }
  return total / x.length;
}`;
  const w = [[0.3, -0.2, 0.5], [0.1, 0.4, -0.6]];
  const b = [0.05, -0.1];
  const x = [[1, 0.5, -0.3], [0.2, -1.1, 0.7], [-0.4, 0.9, 0.1], [0.8, 0.3, -0.9]];
  const y = [0.2, -0.3, 0.5, 0.1];
  const grad = (code: string) => {
    const wb = w.map((r) => r.map(() => 0));
    const bb = b.map(() => 0);
    const tape = Tape.acquire();
    const m = loadGenerated(code) as Record<string, Fn>;
    m.nll_fwd(tape, w, wb, b, bb, x, y);
    const peak = tape.heights.floats;
    m.nll_bwd(tape, w, wb, b, bb, x, y, 1);
    expect(tape.empty).toBe(true);
    Tape.release(tape);
    return { g: [...wb.flat(), ...bb], peak };
  };
  it('runs each iteration adjoint in the forward sweep; same gradient as the reversed loop; tape holds no per-point values', () => {
    const on = compile(SRC, { head: 'nll', wrt: ['w', 'b'], js: false, runtimeImport: 'tsad/runtime', modes: ['reverse'] });
    expect(on.code).toMatch(/\$ad fused reduction: each iteration's adjoint runs now with totalb = 1/);
    const onJs = compile(SRC, { head: 'nll', wrt: ['w', 'b'], js: true, runtimeImport: null, modes: ['reverse'] });
    const off = compile(SRC, { head: 'nll', wrt: ['w', 'b'], js: true, runtimeImport: null, modes: ['reverse'], adjoint: { tbr: true, fuseReductions: false } });
    expect(off.code).not.toMatch(/fused reduction/);
    const a = grad(onJs.code);
    const r = grad(off.code);
    a.g.forEach((v, k) => expect(Math.abs(v - r.g[k])).toBeLessThan(1e-14 * (1 + Math.abs(r.g[k]))));
    // after the forward sweep: the unit adjoints (w and b) only, not anything per point
    expect(a.peak).toBe(w.flat().length + b.length);
    expect(r.peak).toBeGreaterThan(x.length * b.length);
    const full = compile(SRC, { head: 'nll', wrt: ['w', 'b'], js: true, runtimeImport: null });
    expect(checkCompiled(full, full.code, 'nll', [w, b, x, y], { seed: 3 }).messages).toEqual([]);
  });
  it('a loop nested deeper in a fused iteration records on one stack buffer, grown as passes need; same gradient', () => {
    // rows of different lengths (3 + 40 + 70 slots a point: the 64-slot buffer grows), a value
    // overwritten in each row step whose old value the reversed step needs
    const src = `export function ragged(w: number[][], x: number[][]): number {
  let total = 0;
  for (let i = 0; i < x.length; i++) {
    const xi = x[i];
    let acc = 0;
    for (let k = 0; k < w.length; k++) {
      const row = w[k];
      let z = 0;
      for (let r = 0; r < row.length; r++) {
        z = Math.sin(z + row[r] * xi[r % xi.length]);
        acc += z * z;
      }
    }
    total += Math.log(1 + acc);
  }
  return total;
}`;
    const w = [3, 40, 70].map((n, k) => Array.from({ length: n }, (_, r) => Math.cos(k + 0.3 * r)));
    const x = [[0.5, -0.2], [1.1, 0.4], [-0.7, 0.9]];
    const gradOf = (code: string) => {
      const m = loadGenerated(code) as Record<string, Fn>;
      const wb = w.map((r) => r.map(() => 0));
      m.ragged_b(w, wb, x, 1);
      return wb.flat();
    };
    const on = compile(src, { head: 'ragged', wrt: ['w'], js: true, runtimeImport: null, modes: ['reverse'] });
    expect(on.code).toMatch(/\$ad stack tape/);
    expect(on.code).toMatch(/tape\.growF\(/);
    const off = compile(src, { head: 'ragged', wrt: ['w'], js: true, runtimeImport: null, modes: ['reverse'], adjoint: { tbr: true, staticTape: false } });
    expect(off.code).not.toMatch(/stack tape/);
    const a = gradOf(on.code);
    const r = gradOf(off.code);
    expect(a).toEqual(r);
    // again: the grown buffer and the stack top are reset by the first run
    expect(gradOf(on.code)).toEqual(r);
    const full = compile(src, { head: 'ragged', wrt: ['w'], js: true, runtimeImport: null });
    expect(checkCompiled(full, full.code, 'ragged', [w, x], { seed: 9 }).messages).toEqual([]);
    // differentiated again (forward over reverse): a grown buffer is a fresh array holding the old values
    const adjointTs = compile(src, { head: 'ragged', wrt: ['w'], js: false, runtimeImport: 'tsad/runtime', modes: ['reverse'] });
    const second = compile({ 'ragged_ad.ts': adjointTs.code }, { head: 'ragged_b', wrt: ['w'], of: ['wb'], js: true, runtimeImport: null, modes: ['tangent'] });
    expect(second.diagnostics.map(formatDiagnostic)).toEqual([]);
    expect(second.code).not.toMatch(/growF|bufF/);
    // H·v, the tangent of the gradient along v, against central differences of the gradient
    const v = w.map((row) => row.map((_, r) => Math.sin(r + 1)));
    const hv = w.map((row) => row.map(() => 0));
    (loadGenerated(second.code) as Record<string, Fn>).ragged_b_d(w, v, w.map((row) => row.map(() => 0)), hv, x, 1);
    const gradAt = (s: number) => {
      const ws = w.map((row, k) => row.map((e, r) => e + s * v[k][r]));
      const g = ws.map((row) => row.map(() => 0));
      (loadGenerated(on.code) as Record<string, Fn>).ragged_b(ws, g, x, 1);
      return g.flat();
    };
    const [gp, gm] = [gradAt(1e-6), gradAt(-1e-6)];
    hv.flat().forEach((e, i) => expect(Math.abs(e - (gp[i] - gm[i]) / 2e-6)).toBeLessThan(1e-5 * (1 + Math.abs(e))));
  });
  it('scratch arrays of a fused iteration are expanded into buffers taken once: no copies, same gradient', () => {
    // per point and component: y = x_i - mu_c, z = L y (lower triangle), sum of z^2 — GMM's shape
    const src = `export function quad(mu: number[][], l: number[][], x: number[][]): number {
  const k = mu.length;
  const d = x[0].length;
  const y = new Float64Array(d);
  const z = new Float64Array(d);
  const e = new Array<number>(k).fill(0);
  let total = 0;
  for (let i = 0; i < x.length; i++) {
    for (let c = 0; c < k; c++) {
      for (let j = 0; j < d; j++) {
        y[j] = x[i][j] - mu[c][j];
        z[j] = y[j];
      }
      let t = 0;
      for (let a = 0; a < d; a++) {
        for (let r = a + 1; r < d; r++) {
          z[r] += l[c][t] * y[a];
          t++;
        }
      }
      let q = 0;
      for (let j = 0; j < d; j++) q += z[j] * z[j];
      e[c] = -0.5 * q;
    }
    let s = 0;
    for (let c = 0; c < k; c++) s += Math.exp(e[c]);
    total += Math.log(s);
  }
  return total;
}`;
    const mu = [[0.1, -0.3, 0.2], [0.5, 0.4, -0.1]];
    const l = [[0.3, -0.2, 0.4], [-0.1, 0.2, 0.6]];
    const xs = [[1, 0.5, -0.3], [0.2, -1.1, 0.7], [-0.4, 0.9, 0.1]];
    const ts = compile(src, { head: 'quad', wrt: ['mu', 'l'], js: false, runtimeImport: 'tsad/runtime', modes: ['reverse'] });
    expect(ts.code).toMatch(/\$ad fused reduction/);
    expect(ts.code).toMatch(/\$ad scratch arrays expanded/);
    // elements live in their slots: y[j] became ySlots[yAt + j], and nothing is copied in or out
    expect(ts.code).toMatch(/ySlots\[yAt \+ j\w*\]/);
    expect(ts.code).toMatch(/zSlots\[zAt\w* \+ /);
    expect(ts.code).not.toMatch(/\by\[z\w*\]|\bz\[z\w*\]/);
    // one set of buffers for all points: taken before the fused loop, given back after it
    const fwdText = ts.code.slice(ts.code.indexOf('export function quad_fwd'), ts.code.indexOf('export function quad_bwd'));
    expect(fwdText.indexOf('tape.bufF(')).toBeLessThan(fwdText.indexOf('$ad fused reduction'));
    expect(fwdText.lastIndexOf('tape.freeF(ySlots)')).toBeGreaterThan(fwdText.lastIndexOf('$ad fused reduction'));
    const gradOf = (code: string) => {
      const m = loadGenerated(code) as Record<string, Fn>;
      const mub = mu.map((r) => r.map(() => 0));
      const lb = l.map((r) => r.map(() => 0));
      const tape = Tape.acquire();
      m.quad_fwd(tape, mu, mub, l, lb, xs);
      m.quad_bwd(tape, mu, mub, l, lb, xs, 1);
      expect(tape.empty).toBe(true);
      Tape.release(tape);
      return [...mub.flat(), ...lb.flat()];
    };
    const on = gradOf(compile(src, { head: 'quad', wrt: ['mu', 'l'], js: true, runtimeImport: null, modes: ['reverse'] }).code);
    const off = gradOf(compile(src, { head: 'quad', wrt: ['mu', 'l'], js: true, runtimeImport: null, modes: ['reverse'], adjoint: { tbr: true, fuseReductions: false } }).code);
    on.forEach((v, j) => expect(Math.abs(v - off[j])).toBeLessThan(1e-13 * (1 + Math.abs(off[j]))));
    const full = compile(src, { head: 'quad', wrt: ['mu', 'l'], js: true, runtimeImport: null });
    expect(checkCompiled(full, full.code, 'quad', [mu, l, xs], { seed: 7 }).messages).toEqual([]);
  });
  it('a max-shifted log-sum-exp written in a fused iteration keeps its taken index and exponentials off the tape', () => {
    // per point: e_c = -(x_i - mu_c)^2 summed over a 2-deep nest, then log-sum-exp with the max shift
    const src = `export function mix(mu: number[][], x: number[][]): number {
  const k = mu.length;
  const d = x[0].length;
  const e = new Array<number>(k).fill(0);
  let total = 0;
  for (let i = 0; i < x.length; i++) {
    for (let c = 0; c < k; c++) {
      let q = 0;
      for (let j = 0; j < d; j++) {
        const y = x[i][j] - mu[c][j];
        q += y * y;
      }
      e[c] = -0.5 * q;
    }
    const n = e.length;
    let mx = e[0];
    for (let c = 1; c < n; c++) {
      if (e[c] > mx) mx = e[c];
    }
    let s = 0;
    for (let c = 0; c < n; c++) s += Math.exp(e[c] - mx);
    total += mx + Math.log(s);
  }
  return total;
}`;
    const mu = [[0.1, -0.3, 0.2], [0.5, 0.4, -0.1], [-0.6, 0.2, 0.3]];
    const xs = [[1, 0.5, -0.3], [0.2, -1.1, 0.7], [-0.4, 0.9, 0.1], [0.3, 0.3, 0.3]];
    const ts = compile(src, { head: 'mix', wrt: ['mu'], js: false, runtimeImport: 'tsad/runtime', modes: ['reverse'] });
    expect(ts.code).toMatch(/\$ad fused reduction/);
    const fwdText = ts.code.slice(ts.code.indexOf('export function mix_fwd'), ts.code.indexOf('export function mix_bwd'));
    const fusedLoop = fwdText.slice(fwdText.indexOf('$ad fused reduction'));
    // the taken index stays in its variable and the exponentials go to one buffer taken before the loop
    expect(fusedLoop).toMatch(/\$ad selection loop/);
    expect(fusedLoop).not.toMatch(/tape\.(pushI|popI|pushR|popR)\(/);
    expect(fusedLoop).toMatch(/tapeBuf\[c\w*\] = tempf;/);
    expect(fusedLoop).not.toMatch(/tape\.pushF\(tempf\)/);
    expect(fwdText.indexOf('$ad static tape')).toBeGreaterThan(-1);
    expect(fwdText.indexOf('$ad static tape')).toBeLessThan(fwdText.indexOf('$ad fused reduction'));
    const gradOf = (adjoint: Record<string, boolean>) => {
      const m = loadGenerated(compile(src, { head: 'mix', wrt: ['mu'], js: true, runtimeImport: null, modes: ['reverse'], adjoint }).code) as Record<string, Fn>;
      const mub = mu.map((r) => r.map(() => 0));
      const tape = Tape.acquire();
      m.mix_fwd(tape, mu, mub, xs);
      m.mix_bwd(tape, mu, mub, xs, 1);
      expect(tape.empty).toBe(true);
      Tape.release(tape);
      return mub.flat();
    };
    const on = gradOf({});
    const off = gradOf({ fuseReductions: false });
    on.forEach((v, j) => expect(Math.abs(v - off[j])).toBeLessThan(1e-13 * (1 + Math.abs(off[j]))));
    const full = compile(src, { head: 'mix', wrt: ['mu'], js: true, runtimeImport: null });
    expect(checkCompiled(full, full.code, 'mix', [mu, xs], { seed: 11 }).messages).toEqual([]);
  });
  it('a small helper called in a fused iteration is written out there for the adjoint; same gradient', () => {
    const src = `function lse(v: number[]): number {
  const n = v.length;
  let mx = v[0];
  for (let i = 1; i < n; i++) {
    if (v[i] > mx) mx = v[i];
  }
  let s = 0;
  for (let i = 0; i < n; i++) s += Math.exp(v[i] - mx);
  return mx + Math.log(s);
}

export function mix(mu: number[][], x: number[][]): number {
  const k = mu.length;
  const e = new Array<number>(k).fill(0);
  let total = 0;
  for (let i = 0; i < x.length; i++) {
    for (let c = 0; c < k; c++) {
      let q = 0;
      for (let j = 0; j < x[i].length; j++) q += (x[i][j] - mu[c][j]) ** 2;
      e[c] = -0.5 * q;
    }
    total += lse(e) + lse(mu[0]);
  }
  return total;
}`;
    const mu = [[0.1, -0.3, 0.2], [0.5, 0.4, -0.1], [-0.6, 0.2, 0.3]];
    const xs = [[1, 0.5, -0.3], [0.2, -1.1, 0.7], [-0.4, 0.9, 0.1], [0.3, 0.3, 0.3]];
    const fwdOf = (code: string) => code.slice(code.indexOf('export function mix_fwd'), code.indexOf('export function mix_bwd'));
    const on = compile(src, { head: 'mix', wrt: ['mu'], modes: ['reverse'] });
    expect(on.diagnostics).toEqual([]);
    const fwd = fwdOf(on.code);
    // lse(e) is written out (its locals renamed where they clash); lse(mu[0]) passes an element of an
    // array of arrays, not a variable, and stays a call
    expect(fwd).toMatch(/\/\/ inlined for the adjoint: lse\(e\)/);
    expect(fwd).toMatch(/\$ad fused reduction[\s\S]*\$ad selection loop/);
    expect(fwd).toMatch(/lse_fwd\(tape, mu\[0\]/);
    expect(fwd).not.toMatch(/lse_fwd\(tape, e\b/);
    // the primal function itself is untouched
    expect(on.code).toMatch(/export function mix\(mu: number\[\]\[\], x: number\[\]\[\]\): number \{[\s\S]*?const lseResult = lse\(e\);/);
    const off = compile(src, { head: 'mix', wrt: ['mu'], modes: ['reverse'], adjoint: { tbr: true, inlineCalls: false } });
    expect(fwdOf(off.code)).not.toMatch(/inlined/);
    // joint mode keeps every call a call (each is checkpointed)
    const joint = compile(src, { head: 'mix', wrt: ['mu'], modes: ['reverse'], adjoint: { tbr: true, checkpointCalls: true } });
    expect(joint.code).not.toMatch(/inlined/);
    const gradOf = (adjoint: Record<string, boolean>) => {
      const m = loadGenerated(compile(src, { head: 'mix', wrt: ['mu'], js: true, runtimeImport: null, modes: ['reverse'], adjoint: { tbr: true, ...adjoint } }).code) as Record<string, Fn>;
      const mub = mu.map((r) => r.map(() => 0));
      m.mix_b(mu, mub, xs, 1);
      return mub.flat();
    };
    const a = gradOf({});
    const b = gradOf({ inlineCalls: false });
    const naive = gradOf({ tbr: false, recompute: false, diffLiveness: false, merge: false, fuseReductions: false });
    a.forEach((v, j) => expect(Math.abs(v - b[j])).toBeLessThan(1e-13 * (1 + Math.abs(b[j]))));
    a.forEach((v, j) => expect(Math.abs(v - naive[j])).toBeLessThan(1e-13 * (1 + Math.abs(naive[j]))));
    const full = compile(src, { head: 'mix', wrt: ['mu'], js: true, runtimeImport: null });
    expect(checkCompiled(full, full.code, 'mix', [mu, xs], { seed: 13 }).messages).toEqual([]);
  });
  it('helpers that call others, carry directives or are large stay calls', () => {
    const body = (helper: string) => `${helper}

export function f(w: number[], x: number[][]): number {
  let total = 0;
  for (let i = 0; i < x.length; i++) {
    let q = 0;
    for (let j = 0; j < w.length; j++) {
      for (let r = 0; r < 2; r++) q += w[j] * x[i][j] * (r + 1);
    }
    const v = h(q);
    total += v;
  }
  return total;
}`;
    const callsOther = body(`function sq(a: number): number {
  return a * a;
}
function h(a: number): number {
  return Math.sin(sq(a));
}`);
    const directive = body(`// $ad nocheckpoint
function h(a: number): number {
  return Math.sin(a * a);
}`);
    const plain = body(`function h(a: number): number {
  return Math.sin(a * a);
}`);
    for (const [src, inlined] of [[callsOther, false], [directive, false], [plain, true]] as const) {
      const r = compile(src, { head: 'f', modes: ['reverse'] });
      expect(r.diagnostics).toEqual([]);
      expect(/inlined for the adjoint: h\(q\)/.test(r.code)).toBe(inlined);
      const js = compile(src, { head: 'f', js: true, runtimeImport: null });
      expect(checkCompiled(js, js.code, 'f', [[0.3, -0.2, 0.5], [[1, 0.5, -0.3], [0.2, -1.1, 0.7]]], { seed: 4 }).messages).toEqual([]);
    }
  });
  it('a loop carrying another active value, or writing what is read after it, keeps the reversed loop', () => {
    const carried = `export function f(x: number[]): number {
  let s = 0;
  let h = 1;
  for (let i = 0; i < x.length; i++) {
    for (let j = 0; j < 2; j++) h = Math.sin(h * x[i]);
    s += h;
  }
  return s;
}`;
    const after = `export function f(x: number[]): number {
  const t = new Float64Array(2);
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    for (let j = 0; j < 2; j++) t[j] = x[i] * (j + 1);
    s += t[0] * t[1];
  }
  return s + t[1];
}`;
    for (const src of [carried, after]) {
      const r = compile(src, { head: 'f', js: true, runtimeImport: null });
      expect(r.code).not.toMatch(/fused reduction/);
      expect(checkCompiled(r, r.code, 'f', [[0.3, -0.7, 1.1, 0.4]], { seed: 5 }).messages).toEqual([]);
    }
  });
});

describe('counted loops whose condition offsets the index (`i + 1 < x.length`)', () => {
  const body = '    const a = x[i + 1] - x[i] * x[i];\n    s += 100 * a * a + (1 - x[i]) * (1 - x[i]);\n';
  const loops: [string, string][] = [
    ['i + 1 < x.length', 'for (let i = 0; i + 1 < x.length; i++)'],
    ['1 + i <= x.length - 1', 'for (let i = 0; 1 + i <= x.length - 1; i++)'],
    ['i - 1 < x.length - 2, from 1', 'for (let i = 1; i - 1 < x.length - 2; i++)'],
    ['i + 2 < x.length + 1, by 2', 'for (let i = 0; i + 2 < x.length + 1; i += 2)'],
    ['i - 1 >= 0, downwards', 'for (let i = x.length - 2; i - 1 >= -1; i--)'],
  ];
  for (const [name, head] of loops)
    it(`${name}: reversed by its index, a and the trip count not recorded; the recording adjoint's gradient bits at every length`, () => {
      const src = `export function f(x: number[]): number {\n  let s = 0;\n  ${head} {\n${body}  }\n  return s;\n}`;
      const on = compile(src, { head: 'f', js: true, runtimeImport: null, modes: ['reverse'] });
      const off = compile(src, { head: 'f', js: true, runtimeImport: null, modes: ['reverse'], adjoint: { recompute: false } });
      expect(on.diagnostics).toEqual([]);
      const grad = (code: string, x: number[]) => {
        const xb = x.map(() => 0);
        (loadGenerated(code) as Record<string, Fn>).f_b(x, xb, 1);
        return xb;
      };
      // (lengths 0 and 1 run no iteration: the reversed loop starts below its start)
      for (const n of [0, 1, 2, 3, 6, 7]) {
        const x = Array.from({ length: n }, (_, k) => 0.4 + 0.3 * Math.sin(3 * k));
        expect(tapeEntries(on.code, 'f', [x]), `length ${n}`).toBe(0);
        expect(grad(on.code, x), `length ${n}`).toEqual(grad(off.code, x));
      }
      const full = compile(src, { head: 'f', js: true, runtimeImport: null });
      expect(checkCompiled(full, full.code, 'f', [[0.3, -0.7, 1.1, 0.4, 0.9, -0.2, 1.3]], { seed: 3 }).messages).toEqual([]);
    });
  it('an index that is not an integer keeps its condition as written: recorded, same gradient', () => {
    const src = `export function f(x: number[], t: number): number {\n  let s = 0;\n  for (let u = 0.5; u + 1 < t; u++) s += x[0] * u;\n  return s;\n}`;
    const on = compile(src, { head: 'f', wrt: ['x'], js: true, runtimeImport: null });
    expect(on.diagnostics).toEqual([]);
    expect(checkCompiled(on, on.code, 'f', [[0.7], 4.2], { seed: 2 }).messages).toEqual([]);
  });
});

// trial 21: a counted loop's reversal started from `bound - 1` (or `bound`) as if the bound were an
// integer; with `k <= n` for n = 2.5 it ran k = 2.5, 1.5 where the primal ran 1, 2 (a silently wrong
// gradient, NaN or writes at fractional indices). Each loop here has a bound that is not an integer at
// the point checked.
describe('counted loops whose bound is not an integer', () => {
  const cases: [string, string, unknown[], string[]][] = [
    ['k <= n, n fractional', 'export function f(y: number, n: number): number {\n  let p = 0;\n  for (let k = 1; k <= n; k++) p += Math.pow(1 + y, k);\n  return p;\n}', [0.1, 2.5], ['y']],
    ['k < n from 0', 'export function f(y: number, n: number): number {\n  let p = 0;\n  for (let k = 0; k < n; k++) p += k * y * y;\n  return p;\n}', [0.5, 2.5], ['y']],
    ['k < N / 2, N odd', 'export function f(xs: number[]): number {\n  let s = 0;\n  for (let k = 0; k < xs.length / 2; k++) s += xs[k] * xs[k] * (k + 1);\n  return s;\n}', [[1, 2, 3, 4, 5]], ['xs']],
    ['i < T / dt (Euler)', 'export function f(k: number, y0: number, T: number, dt: number): number {\n  let y = y0;\n  for (let i = 0; i < T / dt; i++) y -= dt * k * y;\n  return y;\n}', [0.8, 1, 1, 0.3], ['k', 'y0']],
    ['i >= n / 3, downwards', 'export function f(xs: number[]): number {\n  let s = 0;\n  for (let i = xs.length - 1; i >= xs.length / 3; i--) s += xs[i] ** 2 * i;\n  return s;\n}', [[1, 2, 3, 4, 5]], ['xs']],
    ['j <= i / 2 inside i < n', 'export function f(xs: number[], n: number): number {\n  let s = 0;\n  for (let i = 0; i < n; i++)\n    for (let j = 0; j <= i / 2; j++) s += xs[i] * xs[j];\n  return s;\n}', [[1, 2, 3, 4, 5], 5], ['xs']],
    ['by 2 up to a fractional bound', 'export function f(xs: number[], m: number): number {\n  let s = 0;\n  for (let i = 0; i < m; i += 2) s += Math.sin(xs[i]) * xs[i + 1];\n  return s;\n}', [[0.3, 1.2, -0.4, 0.8, 1.1, 0.2], 4.5], ['xs']],
    ['from a start that may not be an integer', 'export function f(y: number, a: number): number {\n  let p = 0;\n  for (let k = a; k < 4; k++) p += Math.exp(y * k);\n  return p;\n}', [0.3, 0.5], ['y']],
  ];
  for (const [name, src, args, wrt] of cases)
    it(`${name}: the adjoint agrees with the tangent and divided differences`, () => {
      const r = compile(src, { head: 'f', wrt, js: true, runtimeImport: null });
      expect(r.diagnostics).toEqual([]);
      expect(checkCompiled(r, r.code, 'f', args, { seed: 7 }).messages).toEqual([]);
    });
});
