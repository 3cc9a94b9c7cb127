// Sparse Jacobians and Hessians (src/api/sparse.ts, the runtime API's sparseJacobian, sparseHessian and
// hessianDiagonal): against the dense ones and divided differences, on banded, arrowhead and chained
// functions, an entry zero only at the point of detection, and branches that change the pattern.
import { describe, expect, it } from 'vitest';
import { grad, hessian, hessianDiagonal, jacobian, RULES, sparseHessian, sparseJacobian } from '../src/index.js';
import { detectPattern, sparseAt, toDense, type PackedSweep, type SparseMatrix } from '../src/api/sparse.js';
import { dividedJacobian } from './support/numeric.js';
import { compile } from '../src/api/compile.js';
import { compileHvp } from '../src/api/hessian.js';
import { loadGenerated } from '../src/api/load.js';
import { generatedOf, packedSweep } from '../src/api/sweeps.js';

function rng(seed: number): () => number {
  let s = seed;
  return () => ((s = (s * 16807) % 2147483647) / 2147483647) * 2 - 1;
}
const point = (n: number, seed = 3) => {
  const R = rng(seed);
  return Array.from({ length: n }, () => 0.5 + 0.5 * R());
};

function near(a: number[][], b: number[][], tol: number, what: string): void {
  expect(a.length, what).toBe(b.length);
  const scale = b.flat().reduce((s, x) => Math.max(s, Math.abs(x)), 1);
  a.forEach((row, i) =>
    row.forEach((x, j) => {
      if (!(Math.abs(x - b[i][j]) <= tol * scale)) expect.fail(`${what}[${i}][${j}]: sparse ${x}, expected ${b[i][j]}`);
    }),
  );
}

/** sorted by row then column, each entry once */
function wellFormed(M: SparseMatrix): void {
  for (let e = 1; e < M.values.length; e++) expect(M.rows[e - 1] < M.rows[e] || (M.rows[e - 1] === M.rows[e] && M.cols[e - 1] < M.cols[e])).toBe(true);
}

// (the functions are plain JavaScript as written: the runtime API reads their source)
function chainedRosenbrock(x: number[]): number {
  let s = 0;
  for (let i = 0; i + 1 < x.length; i++) {
    const a = x[i + 1] - x[i] * x[i];
    const b = 1 - x[i];
    s += 100 * a * a + b * b;
  }
  return s;
}
function arrowhead(x: number[]): number {
  const n = x.length;
  let s = 0;
  for (let i = 0; i + 1 < n; i++) {
    const q = x[i] * x[i] + x[n - 1] * x[n - 1];
    s += q * q - 4 * x[i] + 3;
  }
  return s;
}
function banded(x: number[]): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    s += Math.sin(x[i]) * (i + 1 < x.length ? x[i + 1] : 1);
    if (i + 2 < x.length) s += Math.exp(0.1 * x[i] * x[i + 2]);
  }
  return s;
}
/** ∂²/∂x_i∂x_{i+1} = 2 x_i: zero at x = 0, in the pattern all the same */
function cubic(x: number[]): number {
  let s = 0;
  for (let i = 0; i + 1 < x.length; i++) s += x[i] * x[i] * x[i + 1];
  return s;
}
/** the pattern depends on the branch: diagonal where x[0] > 0, tridiagonal elsewhere */
function switching(x: number[]): number {
  let s = 0;
  if (x[0] > 0) for (let i = 0; i < x.length; i++) s += x[i] * x[i] * x[i];
  else for (let i = 0; i + 1 < x.length; i++) s += x[i] * x[i + 1] * x[i + 1];
  return s;
}

// (these check the colouring method: its colours, its structural pattern; test/sparse-elements.test.ts the
// method by elements, the default where it applies)
const C = { sparse: 'colouring' } as const;

describe('sparseHessian', () => {
  const cases: [string, (x: number[]) => number, number, number][] = [
    ['chained Rosenbrock', chainedRosenbrock, 12, 3],
    ['arrowhead', arrowhead, 10, 2],
    ['banded (pentadiagonal)', banded, 11, 0],
    ['cubic chain', cubic, 9, 0],
  ];
  for (const [name, f, n, colours] of cases)
    it(`${name}: equals the dense Hessian and divided differences of the gradient`, () => {
      const x = point(n);
      const S = sparseHessian(f, C)(x);
      wellFormed(S);
      expect(S.shape).toEqual([n, n]);
      if (colours) expect(S.info.colours).toBe(colours);
      expect(S.info.colours).toBeLessThan(n);
      expect(S.info.pattern).toBe('detected');
      const D = toDense(S);
      near(D, hessian(f)(x), 1e-12, name);
      near(D, dividedJacobian(grad(f), [x], [0], 1e-5), 1e-6, `${name} vs differences`);
      // the pattern is cached, the result checked again
      const y = point(n, 9);
      const T = sparseHessian(f, C)(y);
      expect(T.info.pattern).toBe('cached');
      expect(T.info.patternMs).toBe(0);
      near(toDense(T), hessian(f)(y), 1e-12, `${name} again`);
      // the diagonal is the sparse Hessian's
      expect(hessianDiagonal(f, C)(y)).toEqual(Array.from({ length: n }, (_, i) => toDense(T)[i][i]));
    });

  it('an entry zero only at the point of detection is in the pattern (structural, not numerical)', () => {
    const n = 7;
    const zero = new Array(n).fill(0);
    const S = sparseHessian(cubic, C)(zero);
    // 2·x_i on the off-diagonals and 2·x_{i+1} on the diagonal but its last entry: all zero at 0, all listed
    expect(S.info.nnz).toBe(3 * (n - 1));
    expect(Array.from(S.values).every((v) => v === 0)).toBe(true);
    const x = point(n);
    const T = sparseHessian(cubic, C)(x);
    expect(T.info.pattern).toBe('cached');
    near(toDense(T), hessian(cubic)(x), 1e-12, 'cubic at x after detection at 0');
  });

  it('a branch that changes the pattern: the stale pattern is caught and detected again, never used silently', () => {
    const n = 8;
    const diag = point(n); // x[0] > 0: diagonal
    const tri = diag.map((v) => -v); // x[0] < 0: tridiagonal
    const f = (x: number[]) => switching(x);
    const first = sparseHessian(switching, C)(diag);
    expect(first.info.nnz).toBe(n);
    const second = sparseHessian(switching, C)(tri);
    expect(second.info.pattern).toBe('redetected');
    near(toDense(second), hessian(switching)(tri), 1e-12, 'tridiagonal branch');
    // the pattern now covers both branches: the diagonal one is a cached (larger) pattern, still right
    const third = sparseHessian(switching, C)(diag);
    expect(third.info.pattern).toBe('cached');
    near(toDense(third), hessian(switching)(diag), 1e-12, 'diagonal branch again');
    // and in the other order, for a fresh function
    expect(sparseHessian(f, { scope: { switching }, ...C })(tri).info.nnz).toBe(3 * (n - 1)); // (x_0 enters linearly: no H[0][0])
    // (the diagonal branch has H[0][0], the other not: detected again, then both branches are cached)
    expect(sparseHessian(f, { scope: { switching }, ...C })(diag).info.pattern).toBe('redetected');
    const back = sparseHessian(f, { scope: { switching }, ...C })(tri);
    expect(back.info.pattern).toBe('cached');
    near(toDense(back), hessian(switching)(tri), 1e-12, 'tridiagonal branch again');
  });

  it('several independents and an object: rows and columns as hessian orders them', () => {
    const f = (p: { b: number; a: number[] }, s: number) => {
      let t = s * s * p.b;
      for (let i = 0; i < p.a.length; i++) t += p.a[i] * p.a[i] * (i === 0 ? s : p.b);
      return t;
    };
    const p = { b: 0.7, a: [0.3, -0.2, 0.9] };
    const S = sparseHessian(f, { wrt: [0, 1] })(p, 1.3);
    wellFormed(S);
    near(toDense(S), hessian(f, { wrt: [0, 1] })(p, 1.3), 1e-12, 'object and scalar');
  });
});

describe('sparseJacobian', () => {
  function residuals(x: number[]): number[] {
    const r: number[] = [];
    for (let i = 0; i + 1 < x.length; i++) {
      r.push(10 * (x[i + 1] - x[i] * x[i]));
      r.push(1 - x[i]);
    }
    return r;
  }
  function tridiagonal(x: number[]): number[] {
    return x.map((v, i) => (i > 0 ? x[i - 1] : 0) * v - Math.sin(v) + (i + 1 < x.length ? Math.exp(x[i + 1]) : 0));
  }
  function arrow(x: number[]): number[] {
    const n = x.length;
    return x.map((v, i) => (i + 1 < n ? v * x[n - 1] : v * v));
  }
  function flips(x: number[]): number[] {
    const r = new Array<number>(x.length).fill(0);
    for (let i = 0; i < x.length; i++) r[i] = x[0] > 0 ? x[i] * x[i] : x[i] * x[(i + 3) % x.length];
    return r;
  }
  const cases: [string, (x: number[]) => number[], number, number][] = [
    ['Rosenbrock residuals', residuals, 10, 2],
    ['tridiagonal', tridiagonal, 12, 3],
    ['arrowhead', arrow, 9, 0],
  ];
  for (const [name, f, n, colours] of cases)
    it(`${name}: equals the dense Jacobian and divided differences`, () => {
      const x = point(n);
      const S = sparseJacobian(f)(x);
      wellFormed(S);
      if (colours) expect(S.info.colours).toBe(colours);
      const D = toDense(S);
      near(D, jacobian(f)(x), 1e-14, name);
      near(D, dividedJacobian(f, [x], [0], 1e-6), 1e-6, `${name} vs differences`);
      expect(sparseJacobian(f)(point(n, 5)).info.pattern).toBe('cached');
    });

  it('a branch that changes the pattern is detected again', () => {
    const x = point(9);
    expect(sparseJacobian(flips)(x).info.colours).toBe(1);
    const y = x.map((v) => -v);
    const S = sparseJacobian(flips)(y);
    expect(S.info.pattern).toBe('redetected');
    near(toDense(S), jacobian(flips)(y), 1e-14, 'other branch');
  });

  it('a function writing into its independent array: each timed sweep on its own seeds', () => {
    // the first sweep at a width times the vector and the scalar sweep on the same seeds; the tangent of
    // `a[0] = tanh(1.5 a[0])` writes into them, and the run kept read the changed seed (a wrong entry
    // J·v could not see: v's seed was scaled alike; found by the fuzz property sparse)
    const f = (a: number[]) => {
      a[0] = Math.tanh(1.5 * a[0]);
      let s = 0;
      for (let i = 0; i < a.length; i++) s += Math.sin(a[i]) * a[(i + 1) % a.length];
      return s;
    };
    const x = [0.84, -0.99, 0.62, -0.02];
    near(toDense(sparseJacobian(f)(x.slice())), jacobian(f)(x.slice()), 1e-14, 'in-place write');
  });
});

describe('the staleness guard (sparseAt on a given matrix)', () => {
  /** the sweep of a dense matrix A (m × n), NaN-propagating like derivative code: Σ_j A_ij·s_j over the structural non-zeros */
  const sweepOf = (A: () => number[][], hide = new Set<string>()): PackedSweep => (seeds, nb) => {
    const M = A();
    const out = new Float64Array(M.length * nb);
    M.forEach((row, i) => row.forEach((a, j) => {
      if (a === 0) return;
      for (let k = 0; k < nb; k++) {
        const s = seeds[j * nb + k];
        // (a detection sweep that hides the entry: derivative code that loses NaN there)
        if (Number.isNaN(s) && hide.has(`${i},${j}`)) continue;
        out[i * nb + k] += a * s;
      }
    }));
    return out;
  };

  it('a matrix gaining an entry after detection: detected again, the result right', () => {
    let A = [[1, 0, 0], [0, 2, 0], [0, 0, 3]];
    const first = sparseAt('jacobian', sweepOf(() => A), 3, 3, undefined);
    expect(first.matrix.info.colours).toBe(1);
    A = [[1, 0, 5], [0, 2, 0], [0, 0, 3]];
    const second = sparseAt('jacobian', sweepOf(() => A), 3, 3, first.state);
    expect(second.matrix.info.pattern).toBe('redetected');
    expect(toDense(second.matrix)).toEqual(A);
  });

  it('detection that misses an entry throws instead of returning a wrong matrix', () => {
    const A = [[1, 4, 0], [0, 2, 0], [0, 0, 3]];
    expect(() => sparseAt('jacobian', sweepOf(() => A, new Set(['0,1'])), 3, 3, undefined)).toThrow(/fails its check even with a pattern detected at this point/);
    // a Hessian too (the hidden entry in one triangle is restored by symmetry: hide both)
    const H = [[1, 4, 0], [4, 2, 0], [0, 0, 3]];
    expect(() => sparseAt('hessian', sweepOf(() => H, new Set(['0,1', '1,0'])), 3, 3, undefined)).toThrow(/fails its check/);
  });
});

describe('detection by residue classes (more than a few hundred columns)', () => {
  it('finds every entry of random patterns, with few extra ones, in far fewer directions', () => {
    const R = rng(29);
    for (const [n, perRow] of [[600, 3], [1500, 5], [400, 40]] as const) {
      const truth = Array.from({ length: n }, (_, i) => [...new Set([i, ...Array.from({ length: perRow - 1 }, () => Math.floor(((R() + 1) / 2) * n))])].sort((a, b) => a - b));
      const dense: PackedSweep = (seeds, nb) => {
        const out = new Float64Array(n * nb);
        truth.forEach((row, i) => row.forEach((j) => { for (let k = 0; k < nb; k++) out[i * nb + k] += 0 * seeds[j * nb + k]; }));
        return out;
      };
      const exact = detectPattern(dense, n, n, true);
      const classes = detectPattern(dense, n, n);
      expect(classes.sweeps).toBeLessThan(exact.sweeps);
      let extra = 0;
      truth.forEach((row, i) => {
        const got = new Set(classes.pattern.colIdx.subarray(classes.pattern.rowPtr[i], classes.pattern.rowPtr[i + 1]));
        for (const j of row) expect(got.has(j)).toBe(true);
        extra += got.size - row.length;
        expect(Array.from(exact.pattern.colIdx.subarray(exact.pattern.rowPtr[i], exact.pattern.rowPtr[i + 1]))).toEqual(row);
      });
      expect(extra).toBeLessThan(perRow > 10 ? n * perRow : n / 50);
    }
  });
});

describe('sparseHessian past a few hundred columns (detection by residue classes)', () => {
  it('chained Rosenbrock and arrowhead at n = 400: the exact pattern, the dense Hessian', () => {
    for (const [f, nnz] of [[chainedRosenbrock, 3 * 400 - 2], [arrowhead, 3 * 400 - 2]] as const) {
      const x = point(400);
      const S = sparseHessian(f)(x);
      expect(S.info.nnz).toBe(nnz);
      expect(S.info.detectionSweeps).toBeLessThan(400 / 32);
      near(toDense(S), hessian(f)(x), 1e-12, f.name);
    }
  });
});

describe('NaN reaches every entry that can be non-zero, through every derivative rule', () => {
  // (the detection's premise, rule by rule: a partial at a point where it is 0, ∞ or a selection still
  // lets NaN through, so no entry the dense Jacobian shows non-zero is missing from the pattern)
  const ops: Record<string, string> = { '+': 'v[0] + v[1]', '-': 'v[0] - v[1]', '*': 'v[0] * v[1]', '/': 'v[0] / v[1]', '%': 'v[0] % v[1]', '**': 'v[0] ** v[1]', neg: '-v[0]', pos: '+v[0]' };
  const points = [[0.5, 0.25], [0, 0], [1, -1], [-1, 2], [2, 0], [0, 3]];
  it.each(Object.keys(RULES))('%s', (name) => {
    const expr = ops[name] ?? `${name}(${RULES[name].args.map((_, k) => `v[${k}]`).join(', ')})`;
    // (the rule's result times a variable-free factor keeps the function a vector one; v[1] is read so that both columns exist)
    const f = (0, eval)(`(v) => [${expr}, v[1] * 1]`) as (v: number[]) => number[];
    for (const x of points) {
      const S = sparseJacobian(f, { check: false })(x);
      const dense = jacobian(f, { check: false })(x);
      const listed = new Set(Array.from(S.rows, (r, e) => `${r},${S.cols[e]}`));
      dense.forEach((row, i) => row.forEach((d, j) => {
        if (d !== 0) expect(listed.has(`${i},${j}`), `${name} at ${x}: ∂${i}/∂${j} = ${d} is not in the pattern`).toBe(true);
      }));
      if (Number.isFinite(dense[0][0]) && Number.isFinite(dense[0][1])) expect(toDense(S).map((r) => r.map((v) => v + 0))).toEqual(dense.map((r) => r.map((v) => v + 0))); // (−0 is 0)
    }
  });
});

describe('layouts', () => {
  it('an object result and a Float64Array argument: rows and columns as jacobian orders them', () => {
    const f = (x: Float64Array, s: number) => ({ z: x[0] * s, a: [x[1] * x[2], Math.sin(x[0])] });
    const x = Float64Array.from([0.3, 0.7, -1.1]);
    const S = sparseJacobian(f, { wrt: [0, 1] })(x, 2);
    wellFormed(S);
    expect(S.shape).toEqual([3, 4]);
    expect(toDense(S)).toEqual(jacobian(f, { wrt: [0, 1] })(x, 2));
    const h = (x: Float64Array) => x[0] * x[1] + Math.exp(x[2]) * x[2];
    expect(toDense(sparseHessian(h)(x))).toEqual(hessian(h)(x));
  });
});

describe('a result whose length depends on the values', () => {
  it('a filter: the pattern is detected again for the new shape', () => {
    const f = (x: number[]) => x.filter((v) => v > 0).map((v) => v * v);
    expect(sparseJacobian(f)([1, -2, 3]).shape).toEqual([2, 3]);
    const S = sparseJacobian(f)([1, 2, 3]);
    expect(S.shape).toEqual([3, 3]);
    expect(S.info.pattern).toBe('detected');
    expect(toDense(S)).toEqual(jacobian(f)([1, 2, 3]));
  });
});

describe('packed sweeps (sweeps.ts): one vector sweep and one tangent sweep per direction agree', () => {
  it('on a tuple of numbers and an array, first and second order', () => {
    const src = 'export function f(a: number, b: number, x: number[]): number { return a * a * b + Math.sin(b) * x[0] * x[1]; }';
    const args = [0.5, 1.5, [2, 3]];
    for (const wrt of [['a', 'b'], ['a', 'b', 'x']]) {
      const r = compileHvp(src, { head: 'f', wrt, js: true, runtimeImport: null });
      const g = generatedOf(r.manifest, r.wrt, loadGenerated(r.code, r.runtimeNames), ['a', 'b', 'x'], args, { primal: 'f_grad', tangent: 'f_grad_d', vector: 'f_grad_dv' });
      const n = wrt.length === 2 ? 2 : 4, nb = 3;
      const seeds = Float64Array.from({ length: n * nb }, (_, i) => Math.sin(i + 1));
      const [a, b] = (['vector', 'scalar'] as const).map((way) => Array.from(packedSweep(g, args, way)(seeds, nb), (v) => +v.toPrecision(12)));
      expect(a).toEqual(b);
    }
    const r = compile('export function g(a: number, x: number[]): number[] { return [a * x[0], x[1] * x[1], a]; }', { head: 'g', modes: ['tangent', 'vector'], js: true, runtimeImport: null });
    const g = generatedOf(r.manifest, r.wrt, loadGenerated(r.code, r.runtimeNames), ['a', 'x'], [2, [3, 4]], { primal: 'g', tangent: 'g_d', vector: 'g_dv' });
    const seeds = Float64Array.from({ length: 9 }, (_, i) => i + 1);
    expect(Array.from(packedSweep(g, [2, [3, 4]], 'vector')(seeds, 3))).toEqual(Array.from(packedSweep(g, [2, [3, 4]], 'scalar')(seeds, 3)));
  });
});
