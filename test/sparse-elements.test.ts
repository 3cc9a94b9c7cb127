// Sparse Hessians by elements (src/transform/elements.ts, src/api/elements.ts): sums of element
// functions of one number array, each element's Hessian by second-order forward mode, added in. Against
// the dense Hessian (forward over reverse), divided differences of the gradient and the colouring
// method; branches and trip counts that change the pattern; and the forms refused (the colouring
// method then answers).
import { describe, expect, it } from 'vitest';
import { compileElements as publicCompileElements, grad, hessian, sparseHessian } from '../src/index.js';
import { toDense, type SparseMatrix } from '../src/api/sparse.js';
import { compileElements } from '../src/api/hessian.js';
import { dividedJacobian } from './support/numeric.js';
import { typecheckModules } from './support/typecheck.js';

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
      if (!(Math.abs(x - b[i][j]) <= tol * scale)) expect.fail(`${what}[${i}][${j}]: by elements ${x}, expected ${b[i][j]}`);
    }),
  );
}

function wellFormed(M: SparseMatrix): void {
  for (let e = 1; e < M.values.length; e++) expect(M.rows[e - 1] < M.rows[e] || (M.rows[e - 1] === M.rows[e] && M.cols[e - 1] < M.cols[e])).toBe(true);
  expect(M.rows.length).toBe(M.values.length);
  expect(M.cols.length).toBe(M.values.length);
}

// (plain JavaScript as written: the runtime API reads their source)
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
/** a read in one side of a conditional (x[i + 1] past the end is never read), a statement-level branch */
function banded(x: number[]): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    s += Math.sin(x[i]) * (i + 1 < x.length ? x[i + 1] : 1);
    if (i + 2 < x.length) s += Math.exp(0.1 * x[i] * x[i + 2]);
  }
  return s;
}
/** every rule: quotients, the unary functions, powers, min and max, a local assigned in branches */
function rules(x: number[]): number {
  let s = 1.5;
  const n = x.length;
  for (let i = 0; i + 2 < n; i++) {
    const u = x[i], v = x[i + 1], w = x[i + 2];
    let t = u / (1 + v * v);
    if (u > v) t = t * Math.log(2 + w * w);
    else t -= Math.sqrt(1 + u * u) / w;
    const r = Math.exp(-u * v) + Math.tanh(w) * Math.atan(u) + Math.cos(v) * Math.sinh(0.5 * w) - Math.cosh(0.3 * u);
    s += t + r + Math.log1p(v * v) + Math.expm1(0.2 * w) + Math.pow(u, 3) + (1 + w * w) ** 1.5 + Math.min(u * v, w) - Math.max(u, v * w) + Math.abs(u - w) * v;
    s -= 0.5 * (u * w) ** 2;
  }
  s += x[0] * x[n - 1];
  return s;
}
/** elements in nested loops (the inner body is the element) and a second loop; a passive integer local */
function grid(x: number[]): number {
  const m = 3;
  let s = 0;
  for (let r = 0; r < m; r++)
    for (let c = 0; c + 1 < m; c++) {
      const k = r * m + c;
      const d = x[k + 1] - x[k];
      s += d * d * x[r];
    }
  for (let j = 0; j < x.length; j++) s += 0.1 * x[j] ** 4;
  return s;
}
/** the pattern depends on the branch: diagonal where x[0] > 0, tridiagonal elsewhere */
function switching(x: number[]): number {
  let s = 0;
  if (x[0] > 0) for (let i = 0; i < x.length; i++) s += x[i] * x[i] * x[i];
  else for (let i = 0; i + 1 < x.length; i++) s += x[i] * x[i + 1] * x[i + 1];
  return s;
}
/** the number of elements depends on a passive argument */
function firstTerms(x: number[], m: number): number {
  let s = 0;
  for (let i = 0; i < m; i++) s += x[i] * x[i + 1] * Math.exp(x[i]);
  return s;
}

describe('sparseHessian by elements', () => {
  const cases: [string, (x: number[]) => number, number][] = [
    ['chained Rosenbrock', chainedRosenbrock, 12],
    ['arrowhead', arrowhead, 10],
    ['banded', banded, 11],
    ['every rule', rules, 9],
    ['nested loops', grid, 9],
  ];
  for (const [name, f, n] of cases)
    it(`${name}: by elements, equal to the dense Hessian, the colouring method and divided differences`, () => {
      const x = point(n);
      const S = sparseHessian(f)(x);
      expect(S.info.method).toBe('elements');
      expect(S.info.pattern).toBe('detected');
      wellFormed(S);
      const D = toDense(S);
      near(D, hessian(f)(x), 1e-12, name);
      near(D, toDense(sparseHessian(f, { sparse: 'colouring' })(x)), 1e-12, `${name} vs colouring`);
      near(D, dividedJacobian(grad(f), [x], [0], 1e-5), 1e-6, `${name} vs differences`);
      const y = point(n, 11);
      const T = sparseHessian(f)(y);
      expect(T.info.pattern).toBe('cached');
      near(toDense(T), hessian(f)(y), 1e-12, `${name} again`);
    });

  it('a branch that changes the pattern: detected again, then each branch cached', () => {
    const n = 8;
    const diag = point(n);
    const tri = diag.map((v) => -v);
    const first = sparseHessian(switching)(diag);
    expect(first.info.method).toBe('elements');
    expect(first.info.nnz).toBe(n);
    const second = sparseHessian(switching)(tri);
    expect(second.info.pattern).toBe('redetected');
    near(toDense(second), hessian(switching)(tri), 1e-12, 'tridiagonal branch');
    const third = sparseHessian(switching)(diag);
    expect(third.info.pattern).toBe('cached');
    near(toDense(third), hessian(switching)(diag), 1e-12, 'diagonal branch again');
    near(toDense(sparseHessian(switching)(tri)), hessian(switching)(tri), 1e-12, 'tridiagonal branch again');
  });

  it('reuseValues: each call overwrites the last one\'s values, equal to a fresh evaluation', () => {
    const f = sparseHessian(chainedRosenbrock, { reuseValues: true });
    const x = point(10), y = point(10, 4);
    const a = f(x);
    const first = Array.from(a.values);
    near(toDense(a), hessian(chainedRosenbrock)(x), 1e-12, 'first');
    const b = f(y);
    expect(b.values.buffer).toBe(a.values.buffer);
    expect(Array.from(b.values)).not.toEqual(first);
    near(toDense(b), hessian(chainedRosenbrock)(y), 1e-12, 'second');
    expect(() => sparseHessian(chainedRosenbrock, { reuseValues: 1 as unknown as boolean })).toThrow(/reuseValues must be true or false/);
  });

  it('an index from a passive argument, the same number of elements: the indices differ, recorded again', () => {
    const pairs = (x: number[], p: number[]) => {
      let s = 0;
      for (let i = 0; i < p.length; i++) s += x[i] * x[p[i]] * x[p[i]];
      return s;
    };
    const x = point(8);
    const a = sparseHessian(pairs)(x, [1, 2, 3, 4]);
    near(toDense(a), hessian(pairs)(x, [1, 2, 3, 4]), 1e-12, 'first');
    const b = sparseHessian(pairs)(x, [7, 6, 5, 4]);
    expect(b.info.method).toBe('elements');
    expect(b.info.pattern).toBe('redetected');
    near(toDense(b), hessian(pairs)(x, [7, 6, 5, 4]), 1e-12, 'other indices');
    expect(sparseHessian(pairs)(x, [1, 2, 3, 4]).info.pattern).toBe('cached');
  });

  it('a branch on x reading another entry, the same number of elements', () => {
    const reads = (x: number[]) => {
      let s = 0;
      for (let i = 0; i + 1 < x.length; i++) {
        if (x[i] > 0) s += x[i] * x[i + 1] * x[i + 1];
        else s += x[i] * x[i] * x[i];
      }
      return s;
    };
    const pos = point(7), neg = pos.map((v, i) => (i === 3 ? -v : v));
    const a = sparseHessian(reads)(neg);
    near(toDense(a), hessian(reads)(neg), 1e-12, 'one element in the other branch');
    const b = sparseHessian(reads)(pos);
    expect(b.info.pattern).toBe('redetected');
    near(toDense(b), hessian(reads)(pos), 1e-12, 'all in the first branch');
    // (the union pattern's places serve the other branch too: an entry not read adds nothing)
    const c = sparseHessian(reads)(neg);
    expect(c.info.pattern).toBe('cached');
    near(toDense(c), hessian(reads)(neg), 1e-12, 'back');
  });

  it('a trip count from a passive argument: more elements, a larger pattern', () => {
    const x = point(10);
    const a = sparseHessian(firstTerms)(x, 3);
    expect(a.info.elements).toBe(3);
    near(toDense(a), hessian(firstTerms)(x, 3), 1e-12, 'm = 3');
    const b = sparseHessian(firstTerms)(x, 7);
    expect(b.info.pattern).toBe('redetected');
    expect(b.info.elements).toBe(7);
    near(toDense(b), hessian(firstTerms)(x, 7), 1e-12, 'm = 7');
  });

  it('many elements: the buffers grow, sampled columns equal H·e_j', () => {
    const n = 3000;
    const x = point(n, 5);
    const S = sparseHessian(arrowhead)(x);
    expect(S.info.elements).toBe(n - 1);
    expect(S.info.nnz).toBe(3 * n - 2);
    const D = toDense(S);
    // (the dense Hessian at n = 3000 is 9·10⁶ entries: compare the rows of a smaller run instead)
    const small = point(40, 5);
    near(toDense(sparseHessian(arrowhead)(small)), hessian(arrowhead)(small), 1e-12, 'n = 40');
    // the closed form at n = 3000: H[i][i] = 4q + 8x_i², H[i][n−1] = 8x_i x_{n−1}, H[n−1][n−1] = Σ 4q + 8x_{n−1}²
    let last = 0;
    for (const i of [0, 1, n >> 1, n - 2]) {
      const q = x[i] * x[i] + x[n - 1] * x[n - 1];
      expect(D[i][i]).toBeCloseTo(4 * q + 8 * x[i] * x[i], 10);
      expect(D[i][n - 1]).toBeCloseTo(8 * x[i] * x[n - 1], 10);
      expect(D[n - 1][i]).toBe(D[i][n - 1]);
    }
    for (let i = 0; i + 1 < n; i++) last += 4 * (x[i] * x[i] + x[n - 1] * x[n - 1]) + 8 * x[n - 1] * x[n - 1];
    expect(D[n - 1][n - 1]).toBeCloseTo(last, 6);
  });

  it('the generated code type-checks under tsc --strict and is deterministic', () => {
    const sources: Record<string, string> = {
      rosenbrock: `export ${chainedRosenbrock.toString().replace('(x)', '(x: number[]): number')}`,
      branches: 'export function f(x: number[], m: number): number { let s = 0; for (let i = 0; i + 2 < x.length && i < m; i++) { const u = x[i]; let t = u * x[i + 1]; if (u > 0.5) t = t / (1 + x[i + 2] * x[i + 2]); else t -= Math.sqrt(1 + u * u); s += t * t + (u > 0.3 ? Math.exp(x[i + 2]) : 1); } s += x[0] ** 3; return s; }',
    };
    const modules: Record<string, string> = {};
    for (const [name, src] of Object.entries(sources)) {
      const head = name === 'rosenbrock' ? 'chainedRosenbrock' : 'f';
      const r = compileElements({ 'f.ts': src }, { head, wrt: 'x' });
      if ('refused' in r) return expect.fail(`${name}: ${r.refused}`);
      // (the entry the README names is the package's: trial 23 found it missing from 'tsad')
      const again = publicCompileElements({ 'f.ts': src }, { head, wrt: 'x' });
      expect('code' in again && again.code).toBe(r.code);
      modules[name] = r.code;
    }
    expect(typecheckModules(modules)).toEqual([]);
  });

  // (TypeScript sources for compileElements; the runtime API takes the same functions as JavaScript)
  const refused: [string, string, RegExp][] = [
    ['a value carried from one element to the next', 'let s = 0; let p = 1; for (let i = 0; i < x.length; i++) { s += x[i] * p; p = x[i]; } return s;', /carries a number/],
    ['a read of the sum', 'let s = 0; for (let i = 0; i < x.length; i++) s = 0.5 * s + x[i] * x[i]; return s;', /assigned other than by adding/],
    ['an index computed from x', 'let s = 0; for (let i = 0; i < x.length; i++) s += x[i] * x[Math.abs(Math.floor(x[i] * 7)) % x.length]; return s;', /index computed from/],
    ['a result that is not the sum', 'let s = 0; for (let i = 0; i < x.length; i++) s += x[i] * x[i]; return Math.sqrt(s);', /does not end by returning a local/],
    ['an alias of x', 'const y = x; let s = 0; for (let i = 0; i < y.length; i++) s += y[i] * y[i] * x[i]; return s;', /used other than as x\[i\]/],
    ['x passed whole to a method', 'let s = 0; for (let i = 0; i < x.length; i++) s += x[i] * x.indexOf(x[i]); return s;', /used other than as x\[i\]|call/],
    ['a write into an array', 'const y = [0, 0]; let s = 0; for (let i = 0; i < x.length; i++) { y[0] = x[i]; s += y[0] * x[i]; } return s;', /write into an array/],
  ];
  for (const [what, body, reason] of refused)
    it(`refused, the colouring method answers: ${what}`, () => {
      const r = compileElements({ 'f.ts': `export function f(x: number[]): number { ${body} }` }, { head: 'f', wrt: 'x' });
      expect('refused' in r && r.refused).toMatch(reason);
      const f = new Function(`return function f(x) { ${body} }`)() as (x: number[]) => number;
      const x = point(6);
      const S = sparseHessian(f)(x);
      expect(S.info.method).not.toBe('elements');
      near(toDense(S), hessian(f)(x), 1e-12, what);
    });
});

// Random element bodies (seeded): sites at i, i + 1, i + 2 and the last entry, the operations with
// second-order rules, locals assigned in branches, conditional expressions. By elements against the
// dense Hessian: a wrong rule or a missed dependence shows as a differing entry.
describe('sparseHessian by elements on random element functions', () => {
  function program(seed: number): string {
    const R = rng(seed);
    const pick = <T,>(xs: T[]): T => xs[Math.floor(((R() + 1) / 2) * xs.length) % xs.length];
    const sites = ['x[i]', 'x[i + 1]', 'x[i + 2]', 'x[n - 1]'];
    const locals: string[] = [];
    const atom = () => (R() < 0.25 && locals.length ? pick(locals) : R() < 0.8 ? pick(sites) : (0.5 + (R() + 1) / 2).toFixed(2));
    const expr = (d: number): string => {
      if (d <= 0) return atom();
      const a = expr(d - 1), b = expr(d - 1);
      switch (Math.floor(((R() + 1) / 2) * 12)) {
        case 0: return `(${a} + ${b})`;
        case 1: return `(${a} - ${b})`;
        case 2: case 3: return `(${a} * ${b})`;
        case 4: return `(${a} / (1.5 + ${b} * ${b}))`;
        case 5: return `Math.exp(0.3 * ${a})`;
        case 6: return `Math.log(1 + ${a} * ${a})`;
        case 7: return `Math.sin(${a})`;
        case 8: return `Math.sqrt(2 + ${a} * ${b})`;
        case 9: return `(${a} > ${b} ? ${a} * ${b} : ${b})`;
        case 10: return `Math.tanh(${a}) ** 2`;
        default: return `Math.cos(${a} - ${b})`;
      }
    };
    const lines: string[] = [];
    lines.push(`const a = ${expr(2)};`);
    locals.push('a');
    lines.push(`let b = ${expr(1)};`);
    lines.push(`if (${atom()} > 0.8) b = b * ${expr(1)}; else b -= ${expr(2)};`);
    locals.push('b');
    lines.push(`s += ${expr(2)} + a * b;`);
    if (R() > 0) lines.push(`s -= ${expr(1)};`);
    return `function f(x) { const n = x.length; let s = 0; for (let i = 0; i + 2 < n; i++) { ${lines.join(' ')} } return s; }`;
  }
  it('equal the dense Hessian on 12 random programs', () => {
    for (let seed = 1; seed <= 12; seed++) {
      const src = program(seed * 7919);
      const f = new Function(`return ${src}`)() as (x: number[]) => number;
      const x = point(7, seed);
      const S = sparseHessian(f)(x);
      expect(S.info.method, src).toBe('elements');
      near(toDense(S), hessian(f)(x), 1e-10, src);
    }
  });
});
