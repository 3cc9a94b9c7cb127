// Golden tests from the figures of the Tapenade report (Hascoët & Pascual, INRIA RR-7957, 2012; notes in
// seeds/notes/tapenade.md §3.3–3.8): Fig. 6 ASSIGN-1, Fig. 7 CONTROL-1, Fig. 8 ACTIVITY-1, Fig. 9 VECTOR-1,
// Fig. 10 MERGE-1 (naive column).
//
// Each test/golden/figN/ holds input.ts (the Fortran example in TypeScript) and expected.ts (the figure's
// derivative code translated by hand into TypeScript in tsad's conventions — from the figure, not from tsad's
// output). Two kinds of tests:
//  - structural: tsad's generated function and the expected one have the same normalized syntax tree
//    (compare.ts: modulo formatting, consistent renaming of fresh names, and placement of hoisted
//    declarations). Where tsad's code differs from the figure in another way, the test is `it.fails` and a
//    `// DIFFERS:` comment states the difference; it starts failing (i.e. "passes unexpectedly") as soon as
//    tsad's output matches the figure, at which point the `.fails` must be removed.
//  - numerical: tsad's output and the expected translation, both loaded and run on random inputs, compute
//    the same values and derivatives; and the expected translation itself is checked (tangents against
//    central differences, adjoints by the dot-product test), so that the golden files are known to be right.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compile, type CompileOptions } from '../../src/api/compile.js';
import { loadGenerated } from '../../src/api/load.js';
import { clone, flatten, rng } from '../../src/api/values.js';
import { formatDiagnostic } from '../../src/frontend/diagnostics.js';
import { compareFunctions, userNamesOf } from './compare.js';
import * as E6 from './fig6/expected.js';
import * as P6 from './fig6/input.js';
import * as E7 from './fig7/expected.js';
import * as P7 from './fig7/input.js';
import * as E8 from './fig8/expected.js';
import * as P8 from './fig8/input.js';
import * as E9 from './fig9/expected.js';
import * as P9 from './fig9/input.js';
import * as E10 from './fig10/expected.js';
import * as P10 from './fig10/input.js';

const HERE = dirname(fileURLToPath(import.meta.url));

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Fn = (...args: any[]) => any;
type Impl = Record<string, Fn>;

interface Fig {
  input: string;
  expected: string;
  /** tsad's output as TypeScript (compared) and its functions loaded from the JavaScript output (run) */
  generated: string;
  tsad: Impl;
  users: Set<string>;
}

function figure(dir: string, options: CompileOptions): Fig {
  const input = readFileSync(join(HERE, dir, 'input.ts'), 'utf8');
  const expected = readFileSync(join(HERE, dir, 'expected.ts'), 'utf8');
  const files = { 'input.ts': input };
  const ts = compile(files, options);
  const js = compile(files, { ...options, js: true, runtimeImport: null });
  if (ts.diagnostics.length || js.diagnostics.length) throw new Error([...ts.diagnostics, ...js.diagnostics].map(formatDiagnostic).join('\n'));
  return { input, expected, generated: ts.code, tsad: loadGenerated(js.code) as Impl, users: userNamesOf(input) };
}

/** structural comparison of tsad's `name` with the golden `name` (throws with the first difference) */
function expectSameCode(fig: Fig, name: string, commutative = false): void {
  const r = compareFunctions(fig.generated, fig.expected, name, { userNames: fig.users, commutative });
  if (!r.equal) {
    expect.fail(`${r.difference}\n--- expected (normalized)\n${r.expectedNormalized}\n--- tsad (normalized)\n${r.actualNormalized}`);
  }
}

/** |a − e| ≤ tol·max(1, |a|, |e|) elementwise */
function expectClose(actual: number[], expected: number[], tol = 1e-11, what = ''): void {
  expect(actual.length, what).toBe(expected.length);
  for (let k = 0; k < expected.length; k++) {
    const a = actual[k], e = expected[k];
    const ok = (Number.isNaN(a) && Number.isNaN(e)) || Math.abs(a - e) <= tol * Math.max(1, Math.abs(a), Math.abs(e));
    if (!ok) expect.fail(`${what}[${k}]: ${a} vs expected ${e}`);
  }
}

const dotp = (a: number[], b: number[]): number => a.reduce((s, x, k) => s + x * b[k], 0);

/**
 * A figure's function as a map from a flat vector of independents to a flat vector of dependents, with
 * its tangent and adjoint in the calling conventions of the generated code.
 */
interface Harness<P> {
  point: (r: () => number, trial: number) => P;
  /** independents of p, flat */
  indep: (p: P) => number[];
  /** p with its independents replaced */
  withIndep: (p: P, x: number[]) => P;
  primal: (p: P) => number[];
  tangent?: (impl: Impl, p: P, dir: number[]) => { out: number[]; dot: number[] };
  adjoint?: (impl: Impl, p: P, seed: number[]) => { out: number[]; grad: number[] };
}

const uniform = (r: () => number, lo: number, hi: number) => lo + (hi - lo) * r();
const vec = (r: () => number, n: number, lo = -1, hi = 1) => Array.from({ length: n }, () => uniform(r, lo, hi));

/** central differences of the primal along dir */
function fd<P>(h: Harness<P>, p: P, dir: number[], step = 1e-6): number[] {
  const x = h.indep(p);
  const plus = h.primal(h.withIndep(p, x.map((v, k) => v + step * dir[k])));
  const minus = h.primal(h.withIndep(p, x.map((v, k) => v - step * dir[k])));
  return plus.map((v, k) => (v - minus[k]) / (2 * step));
}

const TRIALS = 6;

/** tsad's tangent/adjoint equal the expected translation's, and the expected translation is right */
function numericalTests<P>(fig: () => Fig, expectedImpl: Impl, h: Harness<P>, names: { tangent?: string[]; adjoint?: string }): void {
  for (const name of names.tangent ?? []) {
    it(`${name}: tsad computes the same values and tangents as the figure`, () => {
      const r = rng(11);
      for (let t = 0; t < TRIALS; t++) {
        const p = h.point(r, t);
        const dir = vec(r, h.indep(p).length);
        const mine = h.tangent!(renamed(expectedImpl, name), clone(p), dir);
        const theirs = h.tangent!(renamed(fig().tsad, name), clone(p), dir);
        expectClose(theirs.out, mine.out, 1e-12, `${name} values`);
        expectClose(theirs.dot, mine.dot, 1e-11, `${name} tangents`);
      }
    });
    it(`${name}: the figure's tangent agrees with central differences`, () => {
      const r = rng(12);
      for (let t = 0; t < TRIALS; t++) {
        const p = h.point(r, t);
        const dir = vec(r, h.indep(p).length);
        const mine = h.tangent!(renamed(expectedImpl, name), clone(p), dir);
        expectClose(mine.out, h.primal(clone(p)), 0, `${name} values`);
        expectClose(mine.dot, fd(h, clone(p), dir), 1e-6, `${name} tangents vs central differences`);
      }
    });
  }
  const adj = names.adjoint;
  if (adj) {
    it(`${adj}: tsad computes the same values and adjoints as the figure`, () => {
      const r = rng(21);
      for (let t = 0; t < TRIALS; t++) {
        const p = h.point(r, t);
        const seed = vec(r, h.primal(clone(p)).length);
        const mine = h.adjoint!(expectedImpl, clone(p), seed);
        const theirs = h.adjoint!(fig().tsad, clone(p), seed);
        expectClose(theirs.out, mine.out, 1e-12, `${adj} primal outputs`);
        expectClose(theirs.grad, mine.grad, 1e-11, `${adj} adjoints`);
      }
    });
    it(`${adj}: the figure's adjoint passes the dot-product test against central differences`, () => {
      const r = rng(22);
      for (let t = 0; t < TRIALS; t++) {
        const p = h.point(r, t);
        const seed = vec(r, h.primal(clone(p)).length);
        const dir = vec(r, h.indep(p).length);
        const mine = h.adjoint!(expectedImpl, clone(p), seed);
        expectClose(mine.out, h.primal(clone(p)), 0, `${adj} primal outputs`);
        expectClose([dotp(mine.grad, dir)], [dotp(seed, fd(h, clone(p), dir))], 1e-6, `${adj} <x̄, ẋ> vs <ȳ, ẏ>`);
      }
    });
  }
}

/** the harness calls `head_d` / `head_b`; this maps them to another function of the module */
function renamed(impl: Impl, name: string): Impl {
  return new Proxy(impl, { get: (t, k) => (k === 'tangent' ? t[name] : t[k as string]) });
}

// ---------------------------------------------------------------------------------------------------
// Fig. 6 — ASSIGN-1:  a(i) = x*b(j) + COS(a(i)).  Independents a, b, x; dependent a.

describe('Fig. 6 (ASSIGN-1): a[i] = x * b[j] + Math.cos(a[i])', () => {
  let cached: Fig | undefined;
  const fig = () => (cached ??= figure('fig6', { head: 'assign', wrt: ['a', 'b', 'x'], modes: ['tangent', 'reverse'] }));

it('tangent assign_d is the figure\'s', () => expectSameCode(fig(), 'assign_d'));
  it('adjoint forward sweep assign_fwd is the figure\'s', () => expectSameCode(fig(), 'assign_fwd'));
  it('adjoint backward sweep assign_bwd is the figure\'s', () => expectSameCode(fig(), 'assign_bwd'));

  type P = { a: number[]; b: number[]; x: number; i: number; j: number };
  const n = 6;
  const h: Harness<P> = {
    point: (r, t) => ({ a: vec(r, n), b: vec(r, n), x: uniform(r, -2, 2), i: t % n, j: (t * 5 + 1) % n }),
    indep: (p) => [...p.a, ...p.b, p.x],
    withIndep: (p, v) => ({ ...p, a: v.slice(0, n), b: v.slice(n, 2 * n), x: v[2 * n] }),
    primal: (p) => {
      const a = p.a.slice();
      P6.assign(a, p.b.slice(), p.x, p.i, p.j);
      return a;
    },
    tangent: (impl, p, d) => {
      const ad = d.slice(0, n);
      impl.tangent(p.a, ad, p.b, d.slice(n, 2 * n), p.x, d[2 * n], p.i, p.j);
      return { out: p.a, dot: ad };
    },
    adjoint: (impl, p, seed) => {
      const ab = seed.slice();
      const bb = new Array<number>(n).fill(0);
      const xb = impl.assign_b(p.a, ab, p.b, bb, p.x, p.i, p.j) as number;
      return { out: p.a, grad: [...ab, ...bb, xb] };
    },
  };
  numericalTests(fig, E6 as unknown as Impl, h, { tangent: ['assign_d'], adjoint: 'assign_b' });
});

// ---------------------------------------------------------------------------------------------------
// Fig. 7 — CONTROL-1: DO i=3*n*m,1000 … with an IF without ELSE. Independents a, c, B; dependent c.

describe('Fig. 7 (CONTROL-1): loop from 3*n*m to 1000 with an if without else', () => {
  let cached: Fig | undefined;
  const fig = () => (cached ??= figure('fig7', { head: 'control', wrt: ['a', 'c', 'B'], modes: ['tangent', 'reverse'] }));

it('tangent control_d is the figure\'s', () => expectSameCode(fig(), 'control_d'));
  it('tangent control_d is the figure\'s up to the order of the operands of * and +', () => expectSameCode(fig(), 'control_d', true));
  // DIFFERS: (1) the loop start: the figure evaluates 3*n*m once into tmpF before the loop and pushes tmpF
  // (PUSHINTEGER4, tape.pushI) after the loop; tsad evaluates 3*n*m in the loop header, pushes nothing for
  // the bound, and instead pushes the final loop index on the float stack, `tape.pushF(i)`, after the values
  // of a and c. (2) The control codes are swapped: the figure pushes 0 at the end of the THEN branch and 1 at
  // the end of the added ELSE branch; tsad pushes 1 and 0.
  it.fails('adjoint forward sweep control_fwd is the figure\'s', () => expectSameCode(fig(), 'control_fwd'));
  // DIFFERS: (1) tsad pops the loop index, `i = tape.popF()` (a dead value: the reversed loop assigns i)
  // where the figure pops tmpF (POPINTEGER4); (2) the reversed loop `for (i = 1000; i >= 3 * n * m; i--)`
  // recomputes the start instead of using the recorded tmpF (equivalent here: n and m are not modified);
  // (3) the control code is tested inline, `if (tape.popI() === 1)`, where the figure pops it into `branch`
  // and tests `branch === 0` (codes swapped, see control_fwd).
  it.fails('adjoint backward sweep control_bwd is the figure\'s', () => expectSameCode(fig(), 'control_bwd'));

  type P = { a: number; c: number; B: number[]; n: number; m: number };
  // 3*n*m = 990 (11 iterations), 996, 1000 (one iteration), 1050 (no iteration)
  const bounds: [number, number][] = [[5, 66], [4, 83], [2, 166], [1, 330], [5, 66], [7, 50]];
  const h: Harness<P> = {
    // a starts small and B moves it by ±0.6 per iteration: both branches are taken
    point: (r, t) => ({ a: uniform(r, -0.5, 0.5), c: uniform(r, 0.5, 1.5), B: vec(r, 1001, -0.3, 0.3), n: bounds[t][0], m: bounds[t][1] }),
    indep: (p) => [p.a, p.c, ...p.B],
    withIndep: (p, v) => ({ ...p, a: v[0], c: v[1], B: v.slice(2) }),
    primal: (p) => [P7.control(p.a, p.c, p.B, p.n, p.m)],
    tangent: (impl, p, d) => {
      const [c, cd] = impl.tangent(p.a, d[0], p.c, d[1], p.B, d.slice(2), p.n, p.m) as [number, number];
      return { out: [c], dot: [cd] };
    },
    adjoint: (impl, p, seed) => {
      const Bb = new Array<number>(1001).fill(0);
      const [ab, cb] = impl.control_b(p.a, p.c, p.B, Bb, p.n, p.m, seed[0]) as [number, number];
      return { out: [P7.control(p.a, p.c, p.B, p.n, p.m)], grad: [ab, cb, ...Bb] };
    },
  };
  numericalTests(fig, E7 as unknown as Impl, h, { tangent: ['control_d'], adjoint: 'control_b' });
});

// ---------------------------------------------------------------------------------------------------
// Fig. 8 — ACTIVITY-1. Independents a, b, c; dependents d, e (fields of the returned object).

describe('Fig. 8 (ACTIVITY-1): activity analysis, dependents d and e returned as fields of an object', () => {
  let cached: Fig | undefined;
  const fig = () => (cached ??= figure('fig8', { head: 'activity', wrt: ['a', 'b', 'c'], modes: ['tangent'] }));

it('tangent activity_d is the figure\'s column "with activity analysis"', () => expectSameCode(fig(), 'activity_d'));

  type P = { a: number; b: number; c: number };
  const h: Harness<P> = {
    point: (r) => ({ a: uniform(r, 0.5, 2), b: uniform(r, 0.5, 2), c: uniform(r, -2, 2) }),
    indep: (p) => [p.a, p.b, p.c],
    withIndep: (_p, v) => ({ a: v[0], b: v[1], c: v[2] }),
    primal: (p) => flatten(P8.activity(p.a, p.b, p.c)),
    tangent: (impl, p, d) => {
      const [o, od] = impl.tangent(p.a, d[0], p.b, d[1], p.c, d[2]) as [P8.Outputs, P8.Outputs];
      return { out: [o.d, o.e], dot: [od.d, od.e] };
    },
  };
  numericalTests(fig, E8 as unknown as Impl, h, { tangent: ['activity_d'] });

  it('the naive column computes the same values and tangents as tsad', () => {
    const r = rng(31);
    for (let t = 0; t < TRIALS; t++) {
      const p = h.point(r, t);
      const dir = vec(r, 3);
      const naive = h.tangent!(renamed(E8 as unknown as Impl, 'activity_d_naive'), p, dir);
      const theirs = h.tangent!(renamed(fig().tsad, 'activity_d'), p, dir);
      expectClose(theirs.out, naive.out, 1e-12, 'values');
      expectClose(theirs.dot, naive.dot, 1e-12, 'tangents');
    }
  });
});

// ---------------------------------------------------------------------------------------------------
// Fig. 9 — VECTOR-1: G(x, y) calling F. Independents x, y; dependents the returned x and y.

describe('Fig. 9 (VECTOR-1): tangent and multi-directional tangent of G', () => {
  let cached: Fig | undefined;
  const fig = () => (cached ??= figure('fig9', { head: 'G', wrt: ['x', 'y'], of: ['return', 'y'], modes: ['tangent', 'vector'] }));

  // DIFFERS: (1) tsad simplifies the tangent of x*x to `xd = 2 * x * xd`; the figure applies the product
  // rule literally, `xd = xd*x + x*xd`. (2) The call: tsad `const FRes = F_d(y[9], yd[9]); const FResultd =
  // FRes[1]; const FResult = FRes[0];`, the figure one call giving both, `const [result1, result1d] =
  // F_d(y[9], yd[9])`. (3) Operand order: tsad `FResult * xd`, the figure `xd*result1`.
  it.fails('tangent G_d is the figure\'s', () => expectSameCode(fig(), 'G_d'));
  // DIFFERS (the statements before the call are the figure's: `x = x + y[2]` moved above one direction loop
  // holding both derivative statements, src/transform/direction-loops.ts): (1) The call F_DV(y(9), yd(:,9),
  // result1, result1d, nbdirs): tsad copies yd(:,9) by a direction loop into a fresh `argd = new
  // Float64Array(nbdirs)`, calls `FRes = F_dv(y[9], argd, nbdirs)` and reads `FRes[0]` and, in the next
  // direction loop, `FRes[1][nd]`; the figure passes yd(:,9) and receives result1 and result1d directly (one
  // statement here). (2) Outside the figure: tsad copies xd by a direction loop into a fresh `resultd`
  // before returning it; the expected code returns xd (already a copy).
  it.fails('multi-directional tangent G_dv is the figure\'s', () => expectSameCode(fig(), 'G_dv'));

  type P = { x: number; y: number[] };
  const n = 11;
  const h: Harness<P> = {
    point: (r) => ({ x: uniform(r, -1, 1), y: vec(r, n) }),
    indep: (p) => [p.x, ...p.y],
    withIndep: (_p, v) => ({ x: v[0], y: v.slice(1) }),
    primal: (p) => {
      const y = p.y.slice();
      const x = P9.G(p.x, y);
      return [x, ...y];
    },
    tangent: (impl, p, d) => {
      const yd = d.slice(1);
      const [x, xd] = impl.tangent(p.x, d[0], p.y, yd) as [number, number];
      return { out: [x, ...p.y], dot: [xd, ...yd] };
    },
  };
  numericalTests(fig, E9 as unknown as Impl, h, { tangent: ['G_d'] });

  /** G_dv on nb directions, unpacked into nb scalar tangents */
  const vectorRun = (impl: Impl, p: P, dirs: number[][]) => {
    const nb = dirs.length;
    const xd = Float64Array.from(dirs.map((d) => d[0]));
    const xdIn = Float64Array.from(xd);
    const yd = new Array<number>(n * nb).fill(0);
    for (let k = 0; k < nb; k++) for (let i = 0; i < n; i++) yd[i * nb + k] = dirs[k][1 + i];
    const y = p.y.slice();
    const [x, xdOut] = impl.G_dv(p.x, xd, y, yd, nb) as [number, Float64Array];
    expect(Array.from(xd), 'the caller\'s xd is only read').toEqual(Array.from(xdIn));
    return { out: [x, ...y], dots: dirs.map((_, k) => [xdOut[k], ...Array.from({ length: n }, (_, i) => yd[i * nb + k])]) };
  };

  it('G_dv: tsad computes the same values and tangents as the figure', () => {
    const r = rng(41);
    for (let t = 0; t < TRIALS; t++) {
      const p = h.point(r, t);
      const dirs = Array.from({ length: 1 + t }, () => vec(r, 1 + n));
      const mine = vectorRun(E9 as unknown as Impl, p, dirs);
      const theirs = vectorRun(fig().tsad, p, dirs);
      expectClose(theirs.out, mine.out, 1e-12, 'values');
      theirs.dots.forEach((d, k) => expectClose(d, mine.dots[k], 1e-11, `direction ${k}`));
    }
  });

  it('G_dv: the figure\'s multi-directional tangent equals its tangent in each direction', () => {
    const r = rng(42);
    for (let t = 0; t < TRIALS; t++) {
      const p = h.point(r, t);
      const dirs = Array.from({ length: 1 + t }, () => vec(r, 1 + n));
      const mine = vectorRun(E9 as unknown as Impl, p, dirs);
      dirs.forEach((d, k) => expectClose(mine.dots[k], h.tangent!(renamed(E9 as unknown as Impl, 'G_d'), clone(p), d).dot, 1e-14, `direction ${k}`));
    }
  });
});

// ---------------------------------------------------------------------------------------------------
// Fig. 10 — MERGE-1, naive column (tsad has no split/merge optimisation). Independents tau, w, g, z, v;
// dependent g.

describe('Fig. 10 (MERGE-1): naive adjoint of a basic block', () => {
  let cached: Fig | undefined;
  const fig = () => (cached ??= figure('fig10', { head: 'merge', wrt: ['tau', 'w', 'g', 'z', 'v'], modes: ['reverse'] }));

  it('adjoint forward sweep merge_fwd is the figure\'s', () => expectSameCode(fig(), 'merge_fwd'));
  // DIFFERS: (1) tsad increments a zero-initialised resb, `resb += v[j] * gb[i][j]`, and resets it at the
  // end, `resb = 0` (dead); the figure assigns `resb = v(j)*gb(i,j)` and has no reset. (2) The adjoint of
  // the res statement: the figure writes five independent increments, each recomputing its partial from
  // scratch ((z(j)-2.0)*g(i,j)*resb/v(j), …, …*resb/v(j)**2); tsad first evaluates seven temporaries,
  // `temp = tau - w[i][j]; temp0 = temp * g[i][j]; temp1 = z[j] - 2.0; temp2 = temp0 * temp1 / v[j];
  // tempb = 1 / v[j] * resb; tempb0 = temp1 * tempb; tempb1 = g[i][j] * tempb0;`, then `taub += tempb1;
  // wb[i][j] -= tempb1; gb[i][j] += temp * tempb0; zb[j] += temp0 * tempb; vb[j] += -temp2 / v[j] * resb;`
  // — a different association (e.g. taub gets g*((z-2)*(resb/v)) for ((z-2)*g*resb)/v) that shares
  // subexpressions like the figure's split-and-merge column, without its merges (two increments of vb[j],
  // reset of gb[i][j] then increment). The statements before (pops, vb[j] += res*gb, gb = 0) are the figure's.
  it.fails('adjoint backward sweep merge_bwd is the figure\'s naive column', () => expectSameCode(fig(), 'merge_bwd'));

  type P = { tau: number; w: number[][]; g: number[][]; z: number[]; v: number[]; i: number; j: number };
  const rows = 3, cols = 4;
  const mat = (v: number[]) => Array.from({ length: rows }, (_, r) => v.slice(r * cols, (r + 1) * cols));
  const h: Harness<P> = {
    point: (r, t) => ({
      tau: uniform(r, -1, 1), w: mat(vec(r, rows * cols)), g: mat(vec(r, rows * cols)), z: vec(r, cols), v: vec(r, cols, 1, 2),
      i: t % rows, j: (t * 3 + 1) % cols,
    }),
    indep: (p) => [p.tau, ...p.w.flat(), ...p.g.flat(), ...p.z, ...p.v],
    withIndep: (p, x) => {
      const m = rows * cols;
      return { ...p, tau: x[0], w: mat(x.slice(1, 1 + m)), g: mat(x.slice(1 + m, 1 + 2 * m)), z: x.slice(1 + 2 * m, 1 + 2 * m + cols), v: x.slice(1 + 2 * m + cols) };
    },
    primal: (p) => {
      const g = clone(p.g);
      P10.merge(p.tau, p.w, g, p.z, p.v, p.i, p.j);
      return g.flat();
    },
    adjoint: (impl, p, seed) => {
      const wb = mat(new Array<number>(rows * cols).fill(0));
      const gb = mat(seed);
      const zb = new Array<number>(cols).fill(0);
      const vb = new Array<number>(cols).fill(0);
      const taub = impl.merge_b(p.tau, p.w, wb, p.g, gb, p.z, zb, p.v, vb, p.i, p.j) as number;
      return { out: p.g.flat(), grad: [taub, ...wb.flat(), ...gb.flat(), ...zb, ...vb] };
    },
  };
  numericalTests(fig, E10 as unknown as Impl, h, { adjoint: 'merge_b' });
});
