// The benchmark's class and map/reduce versions of GMM and of the particle simulation
// (bench/workloads/gmm-class.ts, gmm-functional.ts, particles-class.ts) compute what their loop versions
// compute: the same primal (tsc-compiled, to 1e-12 relative) and, through tsad, the same gradient.
// `npm run bench` times each beside its loop version; these are the checks behind that comparison.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compile } from '../src/api/compile.js';
import { loadGenerated } from '../src/api/load.js';
import { checkCompiled } from '../src/api/check.js';
import { gmmObjective } from '../evals/gmm/objective.js';
import { repoRoot } from '../evals/paths.js';
import { normal, randomMatrix, randomVector, uniform } from '../evals/random.js';
import { particleSim } from '../bench/workloads/particles.js';
import { particleClassSim } from '../bench/workloads/particles-class.js';
import { gmmClassObjective } from '../bench/workloads/gmm-class.js';
import { gmmFunctionalObjective } from '../bench/workloads/gmm-functional.js';

type Fn = (...args: unknown[]) => unknown;

/** the generated adjoint `head_b` of a workload file (with the files it imports) */
function adjoint(file: string, head: string, wrt: string[], imports: string[] = []): Fn {
  const src = Object.fromEntries([file, ...imports].map((f) => [f, readFileSync(join(repoRoot, f), 'utf8')]));
  const r = compile(src, { head, wrt, js: true, runtimeImport: null, modes: ['reverse'] });
  expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return loadGenerated(r.code, r.runtimeNames)[`${head}_b`] as Fn;
}

const zeros = (v: number[] | number[][]): number[] | number[][] =>
  (typeof v[0] === 'number' ? (v as number[]).map(() => 0) : (v as number[][]).map((r) => r.map(() => 0))) as number[] | number[][];

/** largest |a - e| / max(1, |a| + |e|) */
function maxErr(a: unknown, e: unknown): number {
  if (typeof e === 'number') return Math.abs((a as number) - e) / Math.max(1, Math.abs(a as number) + Math.abs(e));
  const aa = a as unknown[], ee = e as unknown[];
  expect(aa.length).toBe(ee.length);
  return ee.reduce((m: number, x, i) => Math.max(m, maxErr(aa[i], x)), 0);
}

/** largest |v| */
const maxAbs = (v: number[]): number => v.reduce((m, e) => Math.max(m, Math.abs(e)), 0);

const rel = (a: number, e: number) => Math.abs(a - e) / Math.max(Math.abs(e), 1e-300);

describe('GMM with classes and with map/reduce, against the loop version', () => {
  // d=10, K=25 as in the bench, fewer points
  const d = 10, k = 25, n = 60;
  const nr = normal(5), ur = uniform(6);
  const x = randomMatrix(n, d, nr), alpha = randomVector(k, nr), mu = randomMatrix(k, d, ur);
  const q = randomMatrix(k, d, nr), l = randomMatrix(k, (d * (d - 1)) / 2, nr);
  const wrt = ['alpha', 'mu', 'q', 'l'];
  const gradient = (fb: Fn, m: number, gamma: number) => {
    const g = { alpha: zeros(alpha), mu: zeros(mu), q: zeros(q), l: zeros(l) };
    fb(alpha, g.alpha, mu, g.mu, q, g.q, l, g.l, x, m, gamma, 1);
    return g;
  };
  const loop = adjoint('evals/gmm/objective.ts', 'gmmObjective', wrt);
  const cases = [
    { name: 'classes', primal: gmmClassObjective, file: 'bench/workloads/gmm-class.ts', head: 'gmmClassObjective' },
    { name: 'map/reduce', primal: gmmFunctionalObjective, file: 'bench/workloads/gmm-functional.ts', head: 'gmmFunctionalObjective' },
  ];
  for (const c of cases)
    it(`${c.name}: same primal and gradient`, () => {
      const fb = adjoint(c.file, c.head, wrt, ['evals/gmm/objective.ts']);
      for (const [m, gamma] of [[0, 1], [2, 0.7]]) {
        expect(rel(c.primal(alpha, mu, q, l, x, m, gamma), gmmObjective(alpha, mu, q, l, x, m, gamma))).toBeLessThan(1e-12);
        const want = gradient(loop, m, gamma), got = gradient(fb, m, gamma);
        expect(maxAbs(want.alpha as number[])).toBeGreaterThan(1e-3); // a gradient that is not trivially zero
        expect(maxErr([got.alpha, got.mu, got.q, got.l], [want.alpha, want.mu, want.q, want.l])).toBeLessThan(1e-9);
      }
    });
});

describe('particle simulation with classes, against the loop version', () => {
  it('same primal and gradient (n=10, 200 steps)', () => {
    const r = uniform(777), nP = 10;
    const x0 = Array.from({ length: nP }, (_, i) => (i % 4) * 1.1 + 0.05 * r());
    const y0 = Array.from({ length: nP }, (_, i) => Math.floor(i / 4) * 1.1 + 0.05 * r());
    const vx0 = Array.from({ length: nP }, () => 0.2 * (r() - 0.5));
    const vy0 = Array.from({ length: nP }, () => 0.2 * (r() - 0.5));
    const p = [1.0, 1.0, 0.1, 0.3];
    const steps = 200, h = 0.01;
    expect(rel(particleClassSim(x0, y0, vx0, vy0, p, steps, h), particleSim(x0, y0, vx0, vy0, p, steps, h))).toBeLessThan(1e-12);
    const wrt = ['x0', 'y0', 'vx0', 'vy0', 'p'];
    const gradient = (fb: Fn) => {
      const g = [x0, y0, vx0, vy0, p].map((v) => v.map(() => 0));
      fb(x0, g[0], y0, g[1], vx0, g[2], vy0, g[3], p, g[4], steps, h, 1);
      return g;
    };
    const want = gradient(adjoint('bench/workloads/particles.ts', 'particleSim', wrt));
    const got = gradient(adjoint('bench/workloads/particles-class.ts', 'particleClassSim', wrt));
    expect(maxAbs(want[4])).toBeGreaterThan(1e-3); // not trivially zero
    expect(maxErr(got, want)).toBeLessThan(1e-9);
  });
});

describe('what the map/reduce style needs from the compiler', () => {
  // a sum over rows written as reduce, whose iteration holds a reduce without an initial value (which
  // throws on an empty row): the sum is a fused reduction, as the same loop written with `+=` is
  const src = `export function f(xs: number[][], w: number[][]): number {
  return xs.reduce((total, row) => {
    const top = row.reduce((a, v) => (v > a ? v : a));
    return total + top * w.reduce((s, wk) => s + wk.reduce((t, wkj, j) => t + wkj * Math.sin(row[j]), 0), 0);
  }, 0);
}`;
  it('a reducer `(s, v) => s + e` accumulates (`s += e`), and a throw in the iteration does not stop the fusion', () => {
    const r = compile(src, { head: 'f', js: true, runtimeImport: null, modes: ['reverse', 'tangent'] });
    expect(r.diagnostics).toEqual([]);
    expect(r.code).toContain('$ad fused reduction');
    expect(r.code).toMatch(/acc\d* \+= /);
    const m = loadGenerated(r.code, r.runtimeNames);
    const report = checkCompiled(r, m, 'f', [[[0.3, -1.2, 2], [1.5, 0.2, -0.7]], [[0.5, -2, 1.25], [0.1, 0.4, -0.3]]]);
    expect(report.ok).toBe(true);
    // the empty row throws JavaScript's TypeError from the derivatives too
    expect(() => (m['f_b'] as Fn)([[1, 2], []], [[0, 0], []], [[1, 1]], [[0, 0]], 1)).toThrow(TypeError);
  });
});

describe('what the class style needs from the adjoint: loop-local values recomputed, not recorded', () => {
  const src = `function kick(p: { x: number; v: number }, h: number): void {
  p.v += h * Math.sin(p.x);
}
export function f(ps: { x: number; v: number }[], w: number[][], h: number): number {
  for (let i = 0; i < ps.length; i++) {
    const p = ps[i];
    kick(p, h);
    p.x += h * p.v;
  }
  let t = ps[0].x;
  for (let k = 0; k < w.length; k++) {
    const row = w[k];
    for (let j = 0; j < row.length; j++) {
      const c = row[j];
      t = t * c + Math.sin(t);
    }
  }
  return t;
}`;
  it('`const p = ps[i]` (numbers stored into p, here and by a callee) and `const c = row[j]` (row set by the outer loop) are loaded again backwards', () => {
    const r = compile(src, { head: 'f', js: true, runtimeImport: null });
    expect(r.diagnostics).toEqual([]);
    const fwd = /function f_fwd[\s\S]*?\n}\n/.exec(r.code)![0];
    expect(fwd).not.toMatch(/pushR\(p\b/);
    expect(fwd).not.toMatch(/pushF\(c\b/);
    const m = loadGenerated(r.code, r.runtimeNames);
    const args = [[{ x: 0.3, v: -0.2 }, { x: 1.1, v: 0.4 }], [[0.9, -0.4, 0.7], [0.2, 1.3]], 0.1];
    expect(checkCompiled(r, m, 'f', args).ok).toBe(true);
  });
});
