// Second derivatives (forward over reverse, src/api/hessian.ts): the gradient's tangent checked like any
// derivative, against divided differences of the generated gradient, for symmetry (uᵀHv = vᵀHu), and
// against Hessians worked out by hand; through compileHvp, the runtime API and the CLI.
import { describe, expect, it } from 'vitest';
import { checkCompiled } from '../src/api/check.js';
import { frontEnd } from '../src/api/compile.js';
import { compileHvp } from '../src/api/hessian.js';
import { loadGenerated } from '../src/api/load.js';
import { hessian, hvp, sparseHessian } from '../src/api/runtime.js';
import { flatten, packDirections, randomLike, rng, unpackDirection, zeros } from '../src/api/values.js';
import { zerosLike } from '../src/runtime/arrays.js';
import { formatDiagnostic } from '../src/frontend/diagnostics.js';
import { corpus } from './corpus/index.js';
import type { CorpusCase } from './corpus/types.js';
import { caseSources, compileCase, drawArgs } from './support/corpus.js';

// every scalar function of the corpus with `HESSIAN_CORPUS=all` (about a minute), else every sixth
const ALL = process.env.HESSIAN_CORPUS === 'all';

/** corpus heads returning one number (from the front end, which keeps recent results) */
function scalarCases(): CorpusCase[] {
  return corpus.filter((c) => frontEnd(caseSources(c.file)).funcs.get(c.head)?.ret.k === 'num' && !c.tags?.some((t) => SKIPPED_TAGS.has(t)));
}

/**
 * Left out: kinks and piecewise-constant functions (divided differences of the gradient straddle the
 * jump); a bisection (the program's derivative treats the bracket as fixed, the divided differences see
 * its steps); a function shortening its argument (the gradient's length follows the truncation).
 */
const SKIPPED_TAGS = new Set(['kink', 'piecewise-constant', 'bisection', 'parameter-truncated']);

/** the line of the head's declaration in its file */
function headLine(c: CorpusCase): number {
  const lines = caseSources(c.file)[c.file].split('\n');
  return lines.findIndex((l) => new RegExp(`(function\\s+${c.head}\\b|\\b${c.head}\\s*=)`).test(l)) + 1;
}

const refused: string[] = [];
// (and every sort by a key: the gradient code's own order, `Int32Array.from(keys.keys()).sort(…)`, is read back)
// (and the cases whose second derivatives were once wrong or threw, whatever the sample: one array
// pushed under two names restored from the tape, a hand-written rule given one array twice)
const ALWAYS = new Set(['closures/pendulum_energy', 'custom-derivatives/kernel_ridge_objective']);
const CASES = scalarCases().filter((c, i) => ALL || i % 6 === 0 || c.tags?.includes('argsort') || ALWAYS.has(c.name));

function hvpOfCase(c: CorpusCase) {
  const plain = compileCase(c, { modes: ['reverse'] });
  return compileHvp(caseSources(c.file), { head: c.head, wrt: plain.wrt, js: true, runtimeImport: null });
}

/** H v through the generated `<head>_grad_d`, the independents' tangents from `v`, flattened */
function hessianTimes(mod: ReturnType<typeof loadGenerated>, r: ReturnType<typeof compileHvp>, head: string, args: unknown[], v: unknown[]): number[] {
  const entry = r.manifest.find((m) => m.name === `${head}_grad_d`)!;
  const primals = entry.params.filter((p) => p.role === 'primal').map((p) => p.name);
  // (an argument that is not an independent may still have a tangent parameter: its tangent is zero)
  const at = (name: string) => args[primals.indexOf(name)];
  const call = entry.params.map((p) => (p.role === 'primal' ? structuredClone(at(p.name)) : r.wrt.includes(p.of!) ? structuredClone(v[r.wrt.indexOf(p.of!)]) : zeros(at(p.of!))));
  const [, hv] = mod[`${head}_grad_d`](...call) as [unknown, unknown];
  return flatten(hv);
}

/** uᵀ H v */
function bilinear(mod: ReturnType<typeof loadGenerated>, r: ReturnType<typeof compileHvp>, head: string, args: unknown[], u: unknown[], v: unknown[]): number {
  const uf = u.flatMap((x) => flatten(x));
  return hessianTimes(mod, r, head, args, v).reduce((s, y, i) => s + y * uf[i], 0);
}

/** H v for each direction of `dirs` in one call of the generated `<head>_grad_dv`, each flattened */
function hessianTimesAll(mod: ReturnType<typeof loadGenerated>, r: ReturnType<typeof compileHvp>, head: string, args: unknown[], dirs: unknown[][]): number[][] {
  const entry = r.manifest.find((m) => m.name === `${head}_grad_dv`)!;
  const primals = entry.params.filter((p) => p.role === 'primal').map((p) => p.name);
  const at = (name: string) => args[primals.indexOf(name)];
  const nb = dirs.length;
  const call = entry.params.map((p) => {
    if (p.role === 'primal') return structuredClone(at(p.name));
    if (p.role === 'directions') return nb;
    const w = r.wrt.indexOf(p.of!);
    return w >= 0 ? packDirections(dirs.map((d) => d[w]), nb) : zerosLike(at(p.of!) as number[], nb);
  });
  const [g, packed] = mod[`${head}_grad_dv`](...call) as [unknown, unknown];
  return dirs.map((_, k) => flatten(unpackDirection(packed, g, k, nb)));
}

describe('Hessian-vector products of the corpus (forward over reverse)', () => {
  it('has at least 40 scalar cases', () => expect(CASES.length).toBeGreaterThanOrEqual(ALL ? 200 : 40));
  for (const c of CASES) {
    it(c.name, () => {
      const r = hvpOfCase(c);
      // what the gradient code needs and tsad cannot differentiate again is one error, at the head
      if (r.diagnostics.length) {
        expect(r.diagnostics.map(formatDiagnostic)).toHaveLength(1);
        const [d] = r.diagnostics;
        expect(d.message).toMatch(new RegExp(`^second derivatives of '${c.head}' are not available: `));
        expect([d.file, d.line]).toEqual([c.file, headLine(c)]);
        refused.push(c.name);
        return;
      }
      const mod = loadGenerated(r.code);
      const primals = r.manifest.find((m) => m.name === `${c.head}_grad_d`)!.params.filter((p) => p.role === 'primal').map((p) => p.name);
      let checked = 0;
      for (let k = 0; checked < 2 && k < 8; k++) {
        const args = drawArgs(c, 31 + k);
        const rep = checkCompiled(r, r.code, `${c.head}_grad`, args, { seed: 31 + k });
        if (rep.unstable && rep.tangentError > 1e-6) continue;
        expect(rep.messages, `seed ${31 + k}`).toEqual([]);
        const R = rng(7 + k);
        const at = (name: string) => args[primals.indexOf(name)];
        const u = r.wrt.map((w) => randomLike(at(w), R));
        const v = r.wrt.map((w) => randomLike(at(w), R));
        const uHv = bilinear(mod, r, c.head, args, u, v);
        const vHu = bilinear(mod, r, c.head, args, v, u);
        expect(Math.abs(uHv - vHu), `symmetry at seed ${31 + k}: ${uHv} vs ${vHu}`).toBeLessThanOrEqual(1e-8 * Math.max(1, Math.abs(uHv) + Math.abs(vHu)));
        // the vector mode: both directions in one call, as the tangent gives them one at a time
        const both = hessianTimesAll(mod, r, c.head, args, [u, v]);
        const one = [hessianTimes(mod, r, c.head, args, u), hessianTimes(mod, r, c.head, args, v)];
        both.flat().forEach((x, i) => expect(x, `vector mode at seed ${31 + k}`).toBeCloseTo(one.flat()[i], 9));
        checked++;
      }
      expect(checked).toBe(2);
    });
  }
});

describe('Hessian-vector products: what is refused stays a minority', () => {
  // (runs after the corpus cases above: vitest runs a file's tests in order)
  it('at most a fifth of the scalar corpus is refused', () => {
    expect(refused.length, refused.join(', ')).toBeLessThanOrEqual(Math.ceil(CASES.length / 5));
  });
});

describe('Hessians against hand-worked values', () => {
  const rosen = (x: number[]) => {
    let s = 0;
    for (let i = 0; i + 1 < x.length; i++) s += 100 * (x[i + 1] - x[i] * x[i]) ** 2 + (1 - x[i]) ** 2;
    return s;
  };
  /** ∂²/∂x_i∂x_j of the chained Rosenbrock function, by hand */
  const rosenHessian = (x: number[]): number[][] => {
    const n = x.length;
    const H = Array.from({ length: n }, () => new Array<number>(n).fill(0));
    for (let i = 0; i + 1 < n; i++) {
      H[i][i] += 1200 * x[i] * x[i] - 400 * x[i + 1] + 2;
      H[i][i + 1] += -400 * x[i];
      H[i + 1][i] += -400 * x[i];
      H[i + 1][i + 1] += 200;
    }
    return H;
  };

  it('the chained Rosenbrock function (runtime API, plain JavaScript)', () => {
    const x = [0.3, -0.5, 1.2, 0.8, -1.1];
    const H = hessian(rosen)(x);
    const want = rosenHessian(x);
    H.forEach((row, i) => row.forEach((h, j) => expect(h).toBeCloseTo(want[i][j], 10)));
  });

  it('more inputs than one vector sweep carries: the columns come in blocks', () => {
    const x = Array.from({ length: 70 }, (_, i) => Math.sin(i) * 1.3);
    const H = hessian(rosen)(x);
    const want = rosenHessian(x);
    H.forEach((row, i) => row.forEach((h, j) => expect(h).toBeCloseTo(want[i][j], 9)));
  });

  it('hvp is the Hessian times the direction, for several independents', () => {
    const f = (a: number, w: number[]) => a * a * w[0] + Math.sin(w[1] * a) + w[0] * w[1] * w[1];
    const a = 0.7, w = [0.3, -1.1], va = 0.4, vw = [1, -2];
    const H = hessian(f, { wrt: [0, 1] })(a, w);
    const [ha, hw] = hvp(f, [a, w], [va, vw], { wrt: [0, 1] });
    const v = [va, ...vw];
    const Hv = H.map((row) => row.reduce((s, h, j) => s + h * v[j], 0));
    expect([ha, ...hw].map((x) => +x.toFixed(12))).toEqual(Hv.map((x) => +x.toFixed(12)));
    // ∂²f/∂a² = 2 w0 − w1² sin(w1 a), by hand
    expect(H[0][0]).toBeCloseTo(2 * w[0] - w[1] * w[1] * Math.sin(w[1] * a), 12);
  });

  it('a nullable local read in a loop: each iteration\'s directions go on the tape, not the buffer that holds the last ones', () => {
    // the gradient code pushes `r` (number | undefined) by reference; its vector tangent once pushed the
    // one Float64Array it kept updating, so every pop read the last iteration's directions (caught by
    // the runtime API's check of the vector mode; found by the fuzz property hvp)
    const f = (a: number[]) => {
      let s = 0;
      for (let j = 0; j < a.length; j++) {
        const r = a[j + 1];
        s = s + a[j] * (r != null ? r : 0.25);
      }
      return s;
    };
    expect(hessian(f)([0.6, -0.9, 0.13])).toEqual([[0, 1, 0], [1, 0, 1], [0, 1, 0]]);
  });

  it('an independent left out (undefined) is refused by the Hessian matrices, not shifted into the rows', () => {
    // the gradient keeps the left-out number's entry: its rows once came one place late, silently, once
    // the self-check stopped tripping over the undefined direction (fuzz property sparse)
    const f = (y: number | undefined, m: number[]) => {
      if (y === undefined) y = 0.5;
      return y * m[0] * m[0] + m[1] * m[2] * m[2];
    };
    const m = [0.3, -1.5, 0.8];
    expect(() => hessian(f, { wrt: [0, 1] })(undefined, m)).toThrow(/hessian: the independent 'y' is undefined in this call/);
    expect(() => sparseHessian(f, { wrt: [0, 1] })(undefined, m)).toThrow(/sparseHessian: the independent 'y' is undefined/);
    expect(hessian(f, { wrt: [1] })(undefined, m)).toEqual([[1, 0, 0], [0, 0, 1.6], [0, 1.6, -3]]);
    // hvp, shaped like the gradient, gives the left-out one its 0
    expect(hvp(f, [undefined, m], [undefined, [1, 0, 0]], { wrt: [0, 1] })).toEqual([0, [1, 0, 0]]);
  });

  it('an array grown by storing zeros, its values added later: the tangent array grows with it', () => {
    // `b[j] = 0` past the end of `b = []` while b is not varied used to leave the tangent array empty
    // there (NaN in the tangent, and in H·v where the gradient code grows its adjoint array this way)
    const f = (x: number, w: number[]) => {
      const b: number[] = [];
      for (let j = 0; j < 2; j++) b[j] = 0;
      for (let j = 0; j < 2; j++) b[j] += Math.sin(x) * w[j];
      return b[0] * b[1];
    };
    const x = 0.3, w = [1.5, -0.5];
    const [hx] = hvp(f, [x, w], [1, [0, 0]], { wrt: [0, 1] });
    // f = sin²x · w0 w1: ∂²f/∂x² = 2 cos 2x · w0 w1
    expect(hx).toBeCloseTo(2 * Math.cos(2 * x) * w[0] * w[1], 12);
  });

  it('a helper given one array twice (`dot(x, x)`, `v.dot(v)`): its backward sweep adds into one shadow twice', () => {
    // (the gradient code passes the same adjoint array for both parameters; it was refused when
    // differentiated again, with the generated names of the backward sweep)
    const dot = (a: number[], b: number[]) => {
      let s = 0;
      for (let i = 0; i < a.length; i++) s += a[i] * b[i];
      return s;
    };
    const energy = (x: number[]) => 0.5 * dot(x, x) + Math.log(1 + dot(x, x));
    const x = [0.5, -1, 2];
    const r = dot(x, x);
    const H = hessian(energy, { scope: { dot } })(x);
    H.forEach((row, i) => row.forEach((h, j) => expect(h).toBeCloseTo((i === j ? 1 + 2 / (1 + r) : 0) - (4 * x[i] * x[j]) / (1 + r) ** 2, 12)));
  });

  it('independents named out of parameter order: rows and columns follow `wrt`', () => {
    // (the gradient took scalar adjoints by `wrt` position from a tuple in parameter order)
    const f = (a: number, b: number, c: number) => a * a * b + b * b * b + c * a;
    const want = (i: number, j: number) => [[2 * 2, 2 * 1.5, 1], [2 * 1.5, 6 * 2, 0], [1, 0, 0]][i][j];
    const order = [2, 0, 1];
    const H = hessian(f, { wrt: order })(1.5, 2, 0.5);
    expect(H).toEqual(order.map((i) => order.map((j) => want(i, j))));
    expect(hvp(f, [1.5, 2, 0.5], [1, 0, 0], { wrt: order })).toEqual(order.map((i) => want(i, 2)));
  });

  it('a function of a matrix and a vector: the quadratic form xᵀAx has Hessian A + Aᵀ in x', () => {
    const quad = (x: number[], A: number[][]) => {
      let s = 0;
      for (let i = 0; i < x.length; i++) for (let j = 0; j < x.length; j++) s += x[i] * A[i][j] * x[j];
      return s;
    };
    const A = [[1, 2, 0], [0.5, -1, 3], [4, 0, 2]];
    const H = hessian(quad)([0.2, -0.4, 0.9], A);
    H.forEach((row, i) => row.forEach((h, j) => expect(h).toBeCloseTo(A[i][j] + A[j][i], 12)));
  });

  it('compileHvp: the vector mode gives the Hessian columns in one call', () => {
    const src = 'export function rosen(x: number[]): number {\n  let s = 0;\n  for (let i = 0; i + 1 < x.length; i++) s += 100 * (x[i + 1] - x[i] * x[i]) ** 2 + (1 - x[i]) ** 2;\n  return s;\n}\n';
    const r = compileHvp(src, { head: 'rosen', js: true, runtimeImport: null });
    expect(r.diagnostics).toEqual([]);
    const mod = loadGenerated(r.code);
    const x = [0.3, -0.5, 1.2, 0.8], n = x.length;
    const dirs = new Array<number>(n * n).fill(0);
    for (let k = 0; k < n; k++) dirs[k * n + k] = 1; // direction k of element i at [i * n + k]
    const [, H] = mod.rosen_grad_dv(x, dirs, n) as [number[], number[]];
    const want = rosenHessian(x);
    for (let i = 0; i < n; i++) for (let k = 0; k < n; k++) expect(H[i * n + k]).toBeCloseTo(want[i][k], 10);
  });

  it('the vector mode of a recorded loop: every direction of a taped tangent on the float tape, in order', () => {
    // (a while loop is not counted: its adjoint records a, and the vector mode records nbdirs tangents
    // of it per iteration, with no array per push)
    const src = 'export function rosen(x: number[]): number {\n  let s = 0;\n  let i = 0;\n  while (i + 1 < x.length) {\n    const a = x[i + 1] - x[i] * x[i];\n    s += 100 * a * a + (1 - x[i]) ** 2;\n    i++;\n  }\n  return s;\n}\n';
    const r = compileHvp(src, { head: 'rosen', js: true, runtimeImport: null });
    expect(r.diagnostics).toEqual([]);
    const vector = r.code.slice(r.code.indexOf('function rosen_fwd_dv'));
    expect(vector).toMatch(/taped\.pushF\(ad\[nd\]\)/);
    expect(vector).not.toMatch(/pushR|popR/);
    const mod = loadGenerated(r.code);
    const x = [0.3, -0.5, 1.2, 0.8, -1.1], n = x.length;
    // the unit directions and a scaled copy of them: distinct values in every direction
    const nb = 2 * n;
    const dirs = new Array<number>(n * nb).fill(0);
    for (let k = 0; k < n; k++) {
      dirs[k * nb + k] = 1;
      dirs[k * nb + n + k] = k + 2;
    }
    const [, H] = mod.rosen_grad_dv(x, dirs, nb) as [number[], number[]];
    const want = rosenHessian(x);
    for (let i = 0; i < n; i++)
      for (let k = 0; k < n; k++) {
        expect(H[i * nb + k]).toBeCloseTo(want[i][k], 10);
        expect(H[i * nb + n + k]).toBeCloseTo((k + 2) * want[i][k], 10);
      }
  });

  it('a `$ad binomial-ckp` loop: recorded in the gradient that is differentiated again', () => {
    const src = [
      'export function spring(x0: number, v0: number, k: number): number {',
      '  let x = x0;',
      '  let v = v0;',
      '  // $ad binomial-ckp 3',
      '  for (let t = 0; t < 20; t++) {',
      '    v -= 0.05 * k * Math.sin(x);',
      '    x += 0.05 * v;',
      '  }',
      '  return x * x + v * k;',
      '}',
      '',
    ].join('\n');
    const r = compileHvp(src, { head: 'spring', js: true, runtimeImport: null });
    expect(r.diagnostics).toEqual([]);
    expect(r.code).not.toMatch(/ckpBegin/);
    const rep = checkCompiled(r, r.code, 'spring_grad', [0.3, -0.2, 1.7], { seed: 5 });
    expect(rep.messages).toEqual([]);
    expect(rep.tangentError).toBeLessThan(1e-6);
  });

  it('a function returning an array is refused at its declaration', () => {
    const r = compileHvp('export function f(x: number[]): number[] {\n  return [x[0] * x[1], x[1]];\n}\n', { head: 'f' });
    expect(r.diagnostics.map(formatDiagnostic)).toHaveLength(1);
    expect(r.diagnostics[0]).toMatchObject({ file: 'input.ts', line: 1, col: 1 });
    expect(r.diagnostics[0].message).toMatch(/does not return a single number/);
  });
});
