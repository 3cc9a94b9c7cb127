// The runtime API on plain JavaScript as people write it: no type annotations at all, `function`
// declarations, function expressions, arrows, methods, helpers in `scope`, gl-matrix-style functions
// that write into an `out` argument and return it, objects, arrays of arrays, recursion; and the same
// programs down-levelled as a bundler emits them. Every program is checked through jacobian, grad (for
// scalar results), vjp and jvp against central divided differences computed here.
//
// The programs are source text made into functions with `new Function`, so what tsad reads back with
// `toString()` is exactly what is written here (no TypeScript, no formatter in between).
import ts from 'typescript';
import { type AnyFn, close, deepClone, dividedJacobian, flat } from './support/numeric.js';
import { describe, expect, it } from 'vitest';
import { grad, jacobian, jvp, vjp } from '../src/index.js';


// ---------------------------------------------------------------------------------------------------
// independent numeric helpers

/** J[i][j] = ∂ flat(f)_i / ∂ (the wrt arguments' floats)_j by central differences (f runs on copies) */
function divided(f: AnyFn, args: unknown[], wrt: number[]): number[][] {
  return dividedJacobian(f, args, wrt, 1e-6);
}


/** a fixed pseudo-random value shaped like `v` (for vjp's cotangent and jvp's tangents) */
function direction<T>(v: T, seed: number): T {
  let s = seed;
  const next = () => ((s = (s * 16807) % 2147483647) / 2147483647) * 2 - 1;
  const walk = (x: unknown): unknown => (typeof x === 'number' ? next() : Array.isArray(x) ? x.map(walk) : x && typeof x === 'object' ? Object.fromEntries(Object.entries(x).map(([k, y]) => [k, walk(y)])) : x);
  return walk(v) as T;
}

/**
 * f at `args` through jacobian, grad (scalar results), vjp and jvp, each against divided differences;
 * the caller's arguments are left as they were.
 */
function checkProgram(f: AnyFn, args: unknown[], wrt: number[], scope: Record<string, unknown> = {}): void {
  const before = JSON.stringify(args);
  const D = divided(f, args, wrt);
  const y = f(...deepClone(args));
  const opts = { wrt, scope };
  // (jacobian orders an object's fields as the caller wrote them; the other checks flatten by sorted name)
  close(jacobian(f, opts)(...args).flat(), dividedJacobian(f, args, wrt, 1e-6, true).flat(), 'jacobian');
  if (typeof y === 'number') close(flat(grad(f, opts)(...args)), D[0], 'grad');
  // vjp: uᵀ·J for a cotangent u shaped like the result
  const u = direction(y, 7);
  const [value, back] = vjp(f, args as never, opts);
  close(flat(value), flat(y), 'vjp value');
  const uf = flat(u);
  close(flat(back(u as never)), D[0]?.map((_, j) => D.reduce((s, row, i) => s + uf[i] * row[j], 0)) ?? [], 'vjp');
  // jvp: J·v for tangents shaped like the independents
  const tangents = wrt.map((a, k) => direction(args[a], 11 + k));
  const vf = tangents.flatMap((t) => flat(t));
  const [y2, dy] = jvp(f, args as never, tangents as never, opts);
  close(flat(y2), flat(y), 'jvp value');
  close(flat(dy), D.map((row) => row.reduce((s, x, j) => s + x * vf[j], 0)), 'jvp');
  expect(JSON.stringify(args), 'the arguments are left untouched').toBe(before);
}

/** the named functions of a plain-JS source text (helpers see each other as in a module) */
function load(src: string, names: string[]): Record<string, AnyFn> {
  return new Function(`${src}\nreturn { ${names.join(', ')} };`)() as Record<string, AnyFn>;
}

// ---------------------------------------------------------------------------------------------------
// the programs: source, the function to differentiate, its helpers (passed in scope), a point, wrt

interface Program {
  name: string;
  src: string;
  head: string;
  helpers: string[];
  args: unknown[];
  wrt: number[];
}

/** defaults written in the body (an options object and a number), left out or given */
const DAMPED = `
function damped(x, y, opts) {
  opts = opts || {};
  if (y === undefined) y = 2;
  var s = opts.scale || 1;
  return s * x * x + y * x;
}`;

/** an options object destructured with defaults */
const HUBER = `
function huber(pred, target, opts = {}) {
  const { delta = 1.0, reduction = 'mean' } = opts;
  let total = 0;
  for (let i = 0; i < pred.length; i++) {
    const r = Math.abs(pred[i] - target[i]);
    total += r <= delta ? 0.5 * r * r : delta * (r - 0.5 * delta);
  }
  return reduction === 'mean' ? total / pred.length : total;
}`;

const PROGRAMS: Program[] = [
  {
    name: "a string flag defaulted in the body, kind = kind || 'call'",
    src: `
function intrinsic(spot, strike, kind) {
  kind = kind || 'call';
  return kind === 'call' ? Math.log1p(Math.exp(spot - strike)) : Math.log1p(Math.exp(strike - spot));
}`,
    head: 'intrinsic',
    helpers: [],
    args: [1.1, 1, ''],
    wrt: [0, 1],
  },
  {
    name: 'defaults written in the body (opts = opts || {}, if (y === undefined) y = 2), both left out',
    src: DAMPED,
    head: 'damped',
    helpers: [],
    args: [1.5],
    wrt: [0],
  },
  {
    name: 'defaults written in the body, both given',
    src: DAMPED,
    head: 'damped',
    helpers: [],
    args: [1.5, 3, { scale: 2 }],
    wrt: [0, 1],
  },
  {
    name: 'gl-matrix scale: writes into out and returns it',
    src: `
function scale(out, a, s) {
  for (let i = 0; i < a.length; i++) out[i] = a[i] * s;
  return out;
}`,
    head: 'scale',
    helpers: [],
    args: [[0, 0, 0], [1, -2, 0.5], 0.7],
    wrt: [1, 2],
  },
  {
    name: 'triangle area through vec3 helpers that fill out arguments',
    src: `
function sub(out, a, b) {
  out[0] = a[0] - b[0];
  out[1] = a[1] - b[1];
  out[2] = a[2] - b[2];
  return out;
}
function cross(out, a, b) {
  const ax = a[0], ay = a[1], az = a[2];
  const bx = b[0], by = b[1], bz = b[2];
  out[0] = ay * bz - az * by;
  out[1] = az * bx - ax * bz;
  out[2] = ax * by - ay * bx;
  return out;
}
function len(a) {
  return Math.hypot(a[0], a[1], a[2]);
}
function area(p, q, r) {
  const u = sub([0, 0, 0], q, p);
  const v = sub([0, 0, 0], r, p);
  const n = cross([0, 0, 0], u, v);
  return 0.5 * len(n);
}`,
    head: 'area',
    helpers: ['sub', 'cross', 'len'],
    args: [[0.1, 0.2, 0.3], [1.2, 0.1, -0.4], [0.3, 1.1, 0.5]],
    wrt: [0, 1, 2],
  },
  {
    name: 'normalize into out (a branch on the length)',
    src: `
function normalize(out, a) {
  let l = a[0] * a[0] + a[1] * a[1] + a[2] * a[2];
  if (l > 0) l = 1 / Math.sqrt(l);
  out[0] = a[0] * l;
  out[1] = a[1] * l;
  out[2] = a[2] * l;
  return out;
}`,
    head: 'normalize',
    helpers: [],
    args: [[0, 0, 0], [0.3, -1.2, 2]],
    wrt: [1],
  },
  {
    name: 'function declaration helper returning an array (features of a linear model)',
    src: `
function features(x) {
  return [1, x, x * x, Math.sin(x)];
}
function predict(w, x) {
  const phi = features(x);
  let s = 0;
  for (let i = 0; i < w.length; i++) s += w[i] * phi[i];
  return s;
}`,
    head: 'predict',
    helpers: ['features'],
    args: [[0.5, -1, 0.25, 2], 0.8],
    wrt: [0, 1],
  },
  {
    name: 'helper returning an object (mean and variance)',
    src: `
function moments(xs) {
  let m = 0;
  for (let i = 0; i < xs.length; i++) m += xs[i];
  m /= xs.length;
  let v = 0;
  for (let i = 0; i < xs.length; i++) v += (xs[i] - m) * (xs[i] - m);
  return { mean: m, variance: v / xs.length };
}
function zloss(xs, t) {
  const st = moments(xs);
  return (t - st.mean) * (t - st.mean) / st.variance;
}`,
    head: 'zloss',
    helpers: ['moments'],
    args: [[1, 2.5, 0.5, 3], 1.7],
    wrt: [0, 1],
  },
  {
    name: 'arrow helper returning a pair, arrow head with a block body',
    src: `
const polar = (r, t) => [r * Math.cos(t), r * Math.sin(t)];
const centroid = (rs, ts) => {
  let sx = 0, sy = 0;
  for (let i = 0; i < rs.length; i++) {
    const p = polar(rs[i], ts[i]);
    sx += p[0];
    sy += p[1];
  }
  return [sx / rs.length, sy / rs.length, sx * sy];
};`,
    head: 'centroid',
    helpers: ['polar'],
    args: [[1, 2, 0.5], [0.1, 1.2, -0.7]],
    wrt: [0, 1],
  },
  {
    name: 'methods of an object as helpers',
    src: `
const util = {
  sq(x) {
    return x * x;
  },
  softplus(x) {
    return Math.log(1 + Math.exp(x));
  },
};
const sq = util.sq, softplus = util.softplus;
function loss(w, xs, ys) {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += sq(softplus(w[0] * xs[i] + w[1]) - ys[i]);
  return s / xs.length;
}`,
    head: 'loss',
    helpers: ['sq', 'softplus'],
    args: [[0.4, -0.2], [1, 2, 3], [0.5, 1, 2]],
    wrt: [0],
  },
  {
    name: 'matrix product of arrays of arrays into an out matrix',
    src: `
function matmul(out, A, B) {
  for (let i = 0; i < A.length; i++)
    for (let j = 0; j < B[0].length; j++) {
      let s = 0;
      for (let k = 0; k < B.length; k++) s += A[i][k] * B[k][j];
      out[i][j] = s;
    }
  return out;
}
`,
    head: 'matmul',
    helpers: [],
    args: [[[0, 0], [0, 0]], [[1, 2, 0.5], [-1, 0.3, 2]], [[0.2, 1], [1.5, -0.4], [0.7, 0.9]]],
    wrt: [1, 2],
  },
  {
    name: 'a scalar of a matrix product computed by the out-matrix helper',
    src: `
function matmul(out, A, B) {
  for (let i = 0; i < A.length; i++)
    for (let j = 0; j < B[0].length; j++) {
      let s = 0;
      for (let k = 0; k < B.length; k++) s += A[i][k] * B[k][j];
      out[i][j] = s;
    }
  return out;
}
function mix(A, B) {
  const C = matmul([[0, 0], [0, 0]], A, B);
  return C[0][0] + C[1][1] * C[0][1];
}`,
    head: 'mix',
    helpers: ['matmul'],
    args: [[[1, 2, 0.5], [-1, 0.3, 2]], [[0.2, 1], [1.5, -0.4], [0.7, 0.9]]],
    wrt: [0, 1],
  },
  {
    name: 'recursive helper (Horner), arrow head',
    src: `
function horner(c, x, i) {
  if (i === c.length) return 0;
  return c[i] + x * horner(c, x, i + 1);
}
const poly = (c, x) => horner(c, x, 0);`,
    head: 'poly',
    helpers: ['horner'],
    args: [[1, -2, 0.5, 0.25], 1.3],
    wrt: [0, 1],
  },
  {
    name: 'array of objects (pairwise energy of charged particles)',
    src: `
function energy(ps, k) {
  let e = 0;
  for (let i = 0; i < ps.length; i++)
    for (let j = i + 1; j < ps.length; j++) {
      const dx = ps[i].x - ps[j].x, dy = ps[i].y - ps[j].y;
      e += k * ps[i].q * ps[j].q / Math.sqrt(dx * dx + dy * dy);
    }
  return e;
}`,
    head: 'energy',
    helpers: [],
    args: [[{ x: 0, y: 0, q: 1 }, { x: 1, y: 0.5, q: -2 }, { x: -0.5, y: 1, q: 0.5 }], 1.5],
    wrt: [0, 1],
  },
  {
    name: 'function expressions: softmax cross-entropy of a linear layer',
    src: `
const matvec = function (A, v) {
  const y = Array.from({ length: A.length }, () => 0);
  for (let i = 0; i < A.length; i++)
    for (let j = 0; j < v.length; j++) y[i] += A[i][j] * v[j];
  return y;
};
const lse = function (v) {
  let m = -Infinity;
  for (let i = 0; i < v.length; i++) m = Math.max(m, v[i]);
  let s = 0;
  for (let i = 0; i < v.length; i++) s += Math.exp(v[i] - m);
  return m + Math.log(s);
};
const xent = function (W, x, label) {
  const z = matvec(W, x);
  return lse(z) - z[label];
};`,
    head: 'xent',
    helpers: ['matvec', 'lse'],
    args: [[[0.1, 0.2], [-0.3, 0.5], [0.7, -0.1]], [1.5, -0.5], 1],
    wrt: [0, 1],
  },
  {
    name: 'explicit Euler with a derivative function writing into out',
    src: `
function deriv(out, y, k) {
  out[0] = y[1];
  out[1] = -k * y[0] - 0.1 * y[1];
  return out;
}
function simulate(y0, k, steps) {
  const y = y0.slice();
  const d = [0, 0];
  const h = 0.05;
  for (let s = 0; s < steps; s++) {
    deriv(d, y, k);
    for (let i = 0; i < y.length; i++) y[i] += h * d[i];
  }
  return y;
}`,
    head: 'simulate',
    helpers: ['deriv'],
    args: [[1, 0], 2.5, 20],
    wrt: [0, 1],
  },
  {
    name: 'robust line fit: `opts && opts.lambda ? …` in a test, a helper called with a value that may be null',
    src: `
function huber(r, delta) {
  var d = delta || 1.0;
  var a = Math.abs(r);
  return a <= d ? 0.5 * r * r : d * (a - 0.5 * d);
}
function robustFit(params, xs, ys, opts) {
  var slope = params[0], icept = params[1];
  var total = 0;
  for (var i = 0; i < xs.length; i++) {
    var pred = slope * xs[i] + icept;
    total += huber(pred - ys[i], opts ? opts.delta : null);
  }
  var reg = opts && opts.lambda ? opts.lambda : 0;
  return total + reg * (slope * slope + icept * icept);
}`,
    head: 'robustFit',
    helpers: ['huber'],
    args: [[0.9, 0.1], [0, 1, 2, 3, 4], [0.1, 1.2, 1.9, 3.5, 3.9], { delta: 0.5, lambda: 0.01 }],
    wrt: [0],
  },
  {
    name: 'destructured array parameter with a default, arrow head',
    src: `
const norm3 = ([x, y, z = 0]) => Math.sqrt(x * x + y * y + z * z);`,
    head: 'norm3',
    helpers: [],
    args: [[3, 4, 12]],
    wrt: [0],
  },
];

function run(p: Program, src = p.src): void {
  const fns = load(src, [p.head, ...p.helpers]);
  const scope = Object.fromEntries(p.helpers.map((h) => [h, fns[h]]));
  checkProgram(fns[p.head], p.args, p.wrt, scope);
}

describe('plain JavaScript programs against divided differences (jacobian, grad, vjp, jvp)', () => {
  for (const p of PROGRAMS) it(p.name, () => run(p));
});

// ---------------------------------------------------------------------------------------------------
// down-levelled code, as a bundler targeting ES5 emits it: `var` everywhere, arrows and methods turned
// into function expressions, `x ** y` into Math.pow, `for…of` into index loops over a temporary

/** the program as TypeScript's ES5 emit writes it */
function es5(src: string): string {
  return ts.transpileModule(src, { compilerOptions: { target: ts.ScriptTarget.ES5, module: ts.ModuleKind.None, removeComments: true } }).outputText;
}

describe('down-levelled programs (ES5 emit) against divided differences', () => {
  it('the ES5 emit really is down-levelled (function expressions, var, no arrows)', () => {
    const out = es5(PROGRAMS.find((p) => p.head === 'centroid')!.src);
    expect(out).toMatch(/\bvar polar = function \(r, t\)/);
    expect(out).not.toMatch(/=>|\blet\b|\bconst\b/);
  });

  // the ES5 emit with `let` for `var`: every form but `var` itself, which the front end learns on
  // another branch (see the next block)
  for (const p of PROGRAMS) it(`${p.name} (ES5 emit, let for var)`, () => run(p, es5(p.src).replace(/\bvar\b/g, 'let')));

  // Expected to fail until the front end accepts `var` (issue 16, merged from the branch adding it):
  // the very text an ES5 bundle holds.
  for (const p of PROGRAMS) it(`${p.name} (ES5 emit with var; needs the front end's var)`, () => run(p, es5(p.src)));
});

describe('recursion in plain JavaScript', () => {
  it('a recursive helper whose base case has no definite type → one clear error naming it', () => {
    const { f, rev } = load(
      `
function rev(v, i) {
  if (i === v.length) return [];
  const r = rev(v, i + 1);
  r.push(v[i]);
  return r;
}
function f(x) { const r = rev(x, 0); return r[0] * r[1]; }`,
      ['f', 'rev'],
    );
    let message = '';
    try {
      grad(f, { scope: { rev } })([1, 2]);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/recursive helper 'rev' cannot be inferred/);
    expect(message).toMatch(/hint: give 'rev' a base case/);
    expect(message.match(/error:/g)).toHaveLength(1);
  });

  it('mutually recursive helpers written as function declarations, typed from their base cases', () => {
    const { f, even, odd } = load(
      `
function even(x, n) { if (n === 0) return 1; return x * odd(x, n - 1); }
function odd(x, n) { if (n === 0) return x; return x * even(x, n - 1); }
function f(x) { return even(x, 3); }`,
      ['f', 'even', 'odd'],
    );
    checkProgram(f, [1.3], [0], { even, odd });
  });
});

describe('helpers returning untyped arrays, and helpers the calls cannot type', () => {
  it('a helper returning new Array(n).fill(0) gets a real type, and so does the helper it feeds', () => {
    const { f, matvec, lse } = load(
      `
function matvec(A, v) {
  const y = new Array(A.length).fill(0);
  for (let i = 0; i < A.length; i++) for (let j = 0; j < v.length; j++) y[i] += A[i][j] * v[j];
  return y;
}
function lse(v) {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += Math.exp(v[i]);
  return Math.log(s);
}
function f(W, x) { const z = matvec(W, x); return lse(z); }`,
      ['f', 'matvec', 'lse'],
    );
    checkProgram(f, [[[1, 2], [0.5, -1]], [1, 2]], [0, 1], { matvec, lse });
  });

  it('a helper called only with an array of no definite type → the first error names its cause and what to write', () => {
    const { f, lse } = load(
      `
function lse(v) {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += Math.exp(v[i]);
  return Math.log(s);
}
function f(x) { const z = new Array(2); z[0] = x[0]; z[1] = x[1]; return lse(z); }`,
      ['f', 'lse'],
    );
    expect(() => grad(f, { scope: { lse } })([1, 2])).toThrow(/^tsad: function\.ts:1:\d+: error: 'z' is created with holes[\s\S]*hint: write `new Array\(2\)\.fill\(0\)`/);
  });
});

// ---------------------------------------------------------------------------------------------------
// array methods with callbacks (src/frontend/callbacks.ts), as plain JavaScript writes statistics

const CALLBACK_PROGRAMS: Program[] = [
  {
    name: 'variance by reduce and a map → reduce chain',
    src: `
function variance(xs) {
  const m = xs.reduce((s, x) => s + x, 0) / xs.length;
  return xs.map((x) => (x - m) ** 2).reduce((s, d) => s + d, 0) / xs.length;
}`,
    head: 'variance',
    helpers: [],
    args: [[0.3, -1.2, 2, 0.7]],
    wrt: [0],
  },
  {
    name: 'softmax with map and reduce (an array result), a function expression as callback',
    src: `
function softmax(z) {
  const top = z.reduce((a, b) => Math.max(a, b));
  const e = z.map(function (v) { return Math.exp(v - top); });
  const s = e.reduce((a, b) => a + b);
  return e.map((v) => v / s);
}`,
    head: 'softmax',
    helpers: [],
    args: [[0.5, -1, 2, 0.1]],
    wrt: [0],
  },
  {
    name: 'forEach accumulating into variables, filter, some, and a helper called from a callback',
    src: `
function soft(v) {
  return v / (1 + Math.abs(v));
}
function loss(pred, obs, w) {
  let total = 0;
  pred.forEach((p, i) => {
    const r = p - obs[i];
    total += w * r * r;
  });
  const big = pred.filter((p) => p > 0.5);
  const scale = big.some((b) => b > 1) ? 1 : 0.5;
  return total + scale * big.map((b) => soft(b)).reduce((s, b) => s + b, 0);
}`,
    head: 'loss',
    helpers: ['soft'],
    args: [[0.2, 0.9, 1.4, -0.3], [0.1, 0.5, 1, 0], 0.8],
    wrt: [0, 1, 2],
  },
];

describe('array methods with callbacks in plain JavaScript (jacobian, grad, vjp, jvp)', () => {
  for (const p of CALLBACK_PROGRAMS) it(p.name, () => run(p));
  for (const p of CALLBACK_PROGRAMS) it(`${p.name} (ES5 emit, let for var)`, () => run(p, es5(p.src).replace(/\bvar\b/g, 'let')));
});

// ---------------------------------------------------------------------------------------------------
// typing from use (issue 16: the plain JavaScript of the corpus programs): what the values at the call
// do not show is inferred from the source, and the strict front end checks it again

const INFERRED_PROGRAMS: Program[] = [
  // (destructuring with defaults: ES5 emits it as `_a === void 0 ? 1 : _a` over a `var` copy, typed by another rule)
  {
    name: 'an options object destructured with defaults, left out',
    src: HUBER,
    head: 'huber',
    helpers: [],
    args: [[1.3, 2.1, -0.4], [0.2, 0.1, 0.3]],
    wrt: [0],
  },
  {
    name: 'an options object destructured with defaults, one field given',
    src: HUBER,
    head: 'huber',
    helpers: [],
    args: [[1.3, 2.1, -0.4], [0.2, 0.1, 0.3], { reduction: 'sum' }],
    wrt: [0],
  },
  {
    name: 'a helper called with arrays built by push from [] (evolving arrays type its parameters)',
    src: `
function pivot(A, k) {
  let p = k;
  for (let i = k + 1; i < A.length; i++) if (Math.abs(A[i][k]) > Math.abs(A[p][k])) p = i;
  const t = A[k];
  A[k] = A[p];
  A[p] = t;
}
function sqnorm(b) { let q = 0; for (const v of b) q += v * v; return q; }
function det(A0) {
  const A = [];
  for (let i = 0; i < A0.length; i++) A.push(A0[i].slice());
  const d = [];
  for (let i = 0; i < A0.length; i++) d.push(A0[i][i] - 1);
  let det = 1;
  for (let k = 0; k < A.length; k++) {
    pivot(A, k);
    det *= A[k][k];
    for (let i = k + 1; i < A.length; i++) {
      const f = A[i][k] / A[k][k];
      for (let j = k; j < A.length; j++) A[i][j] -= f * A[k][j];
    }
  }
  return det + sqnorm(d);
}`,
    head: 'det',
    helpers: ['pivot', 'sqnorm'],
    args: [[[0.5, 2, 0.1], [3, -1, 0.4], [0.2, 0.7, 1.5]]],
    wrt: [0],
  },
  {
    name: '`let y;` assigned in the branches of a switch, and `let v;` given arrays in an if (typed by their values)',
    src: `
function unit(a, s) {
  let v;
  if (s > 0) v = [a[0] / s, a[1] / s];
  else v = [a[0], a[1]];
  return v;
}
function activate(x, kind) {
  let y;
  switch (kind) {
    case 'relu':
      y = x > 0 ? x : 0;
      break;
    case 'tanh':
      y = Math.tanh(x);
      break;
    default:
      y = x;
  }
  const u = unit([x, y], 2);
  return y * x + u[1];
}`,
    head: 'activate',
    helpers: ['unit'],
    args: [0.7, 'tanh'],
    wrt: [0],
  },
  {
    name: 'arguments left undefined: an options object, weights and an exponent, typed from their uses',
    src: `
function penalty(xs, opts, w, p) {
  let s = 0;
  for (let i = 0; i < xs.length; i++) {
    const scale = opts && opts.window > 1 ? 1 / opts.window : 1;
    const wi = w !== undefined ? w[i] : 1;
    const v = wi * scale * xs[i];
    s += typeof p === 'number' ? Math.abs(v) ** p : v * v;
  }
  return s;
}`,
    head: 'penalty',
    helpers: [],
    args: [[0.5, -1.5, 2], undefined, undefined, undefined],
    wrt: [0],
  },
  {
    name: 'fields the body tests but the argument lacks (`opts.tol ?? 1e-10`, `\'rest\' in spring`) are optional fields',
    src: `
function newton(s, tol, maxIter) {
  let x = s > 1 ? s : 1;
  for (let k = 0; k < maxIter; k++) {
    const next = 0.5 * (x + s / x);
    if (Math.abs(next - x) < tol) { x = next; break; }
    x = next;
  }
  return x;
}
function energy(x, spring, opts) {
  const rest = 'rest' in spring && spring.rest !== undefined ? spring.rest : 1;
  const e = 0.5 * spring.k * (x - rest) * (x - rest);
  const damped = spring.damping !== undefined ? e * Math.exp(-spring.damping) : e;
  return damped + (opts.scale ?? 1) * newton(x * x, opts.tol ?? 1e-10, opts.maxIter ?? 50);
}`,
    head: 'energy',
    helpers: ['newton'],
    args: [1.7, { k: 2.5 }, { scale: 1.5 }],
    wrt: [0, 1, 2],
  },
  {
    name: 'mutual recursion through the function differentiated (its result type comes from its value)',
    src: `
function oddTerm(x, n) { return n === 0 ? x : x - 0.5 * x * evenTerm(x, n - 1); }
function evenTerm(x, n) { return n === 0 ? 1 : 1 + x * oddTerm(x, n - 1); }`,
    head: 'evenTerm',
    helpers: ['oddTerm'],
    args: [0.7, 5],
    wrt: [0],
  },
  {
    name: 'an array literal used only as a spread argument (`lerp(...args)`) is a tuple',
    src: `
function lerp(a, b, t) { return a + (b - a) * t; }
function blend(p, t, xs) {
  const args = [p[0], p[1], t];
  return lerp(...args) * Math.min(0.25, ...xs);
}`,
    head: 'blend',
    helpers: ['lerp'],
    args: [[0.3, 1.7], 0.4, [0.5, -0.2, 0.9]],
    wrt: [0, 1, 2],
  },
  {
    name: 'a named local arrow with untyped parameters passed to a helper that passes it on (RK4 of a damped oscillator)',
    src: `
function step(f, t, y, h) {
  const k1 = f(t, y);
  const k2 = f(t + h / 2, y.map((v, i) => v + (h / 2) * k1[i]));
  return y.map((v, i) => v + h * k2[i]);
}
function integrate(rhs, y0, h, n) {
  let y = y0.slice();
  for (let s = 0; s < n; s++) y = step(rhs, s * h, y, h);
  return y;
}
function oscillator(y0, stiffness, damping) {
  const rhs = (t, y) => [y[1], -stiffness * y[0] - damping * y[1] + 0.1 * t];
  const y = integrate(rhs, y0, 0.05, 8);
  return y[0] * y[0] + 0.5 * y[1] * y[1];
}`,
    head: 'oscillator',
    helpers: ['step', 'integrate'],
    args: [[0.6, -0.3], 1.4, 0.3],
    wrt: [0, 1, 2],
  },
  {
    name: 'an options object passed on to a helper that reads fields it lacks (`opts.tol ?? 1e-10` in the helper)',
    src: `
function newton(s, opts) {
  const tol = opts.tol ?? 1e-10;
  let x = s > 1 ? s : 1;
  for (let k = 0; k < (opts.maxIter ?? 50); k++) {
    const next = 0.5 * (x + s / x);
    if (Math.abs(next - x) < tol) { x = next; break; }
    x = next;
  }
  return (opts.scale ?? 1) * x;
}
function root(x, opts) { return newton(x * x + 1, opts) * x; }`,
    head: 'root',
    helpers: ['newton'],
    args: [1.3, { scale: 1.5 }],
    wrt: [0, 1],
  },
  {
    // (typed from the first call alone, the second call's object lacked a required field: a type error)
    name: 'a helper called with objects of different fields (the caller\'s options, and a literal leaving one out)',
    src: `
function stepEnergy(x, opts) {
  const friction = opts.friction;
  let e = 0;
  for (let i = 0; i < x.length; i++) {
    const v = x[i] * opts.dt;
    e += friction !== undefined ? v * v * (1 - friction) : v * v;
  }
  return e;
}
function twoStepEnergy(x, opts) { const coarse = { dt: 2 * opts.dt }; return stepEnergy(x, opts) + 0.5 * stepEnergy(x, coarse); }`,
    head: 'twoStepEnergy',
    helpers: ['stepEnergy'],
    args: [[0.3, -0.2, 0.5], { dt: 0.3, friction: 0.2 }],
    wrt: [0, 1],
  },
];

describe('plain JavaScript typed from its use (jacobian, grad, vjp, jvp)', () => {
  for (const p of INFERRED_PROGRAMS) it(p.name, () => run(p));
  // the ES5 emit too (`var y;` in the switch, `var A = []`), where the front end reads the down-levelled
  // forms: not yet `??` (a nullable temporary), spread (`__spreadArray`), a local function held in a `var`,
  // or a nullable `const` (`var friction = opts.friction;`: a nullable variable must be `const`), nor a
  // field destructured with a string default (`_b === void 0 ? 'mean' : _b` over a `var` copy of the field)
  const es5Forms = INFERRED_PROGRAMS.filter((p) => !/\?\?|\.\.\.|const rhs|const friction|reduction = 'mean'/.test(p.src));
  for (const p of es5Forms) it(`${p.name} (ES5 emit)`, () => run(p, es5(p.src)));

  it('a bare `let y;` read where it may be unassigned, or given values of two types → a located error', () => {
    const f = new Function('return function f(x) { let y; if (x > 0) y = x * x; return y * 2; };')();
    expect(() => grad(f)(1.5)).toThrow(/function\.ts:1:\d+: error: Variable 'y' is used before being assigned/);
    const g = new Function('return function g(x) { let y; if (x > 0) y = x * x; else y = [x]; return x; };')();
    expect(() => grad(g)(1.5)).toThrow(/function\.ts:1:\d+: error: variable 'y' has type 'any'/);
  });

  it('an array literal that is spread and also written stays number[]: the spread is a located error', () => {
    const { f, lerp } = load(
      `
function lerp(a, b, t) { return a + (b - a) * t; }
function f(x) { const args = [x, 1]; args.push(0.5); return lerp(...args); }`,
      ['f', 'lerp'],
    );
    expect(() => grad(f, { scope: { lerp } })(0.3)).toThrow(/function\.ts:1:\d+: error: A spread argument must either have a tuple type or be passed to a rest parameter/);
  });

  it('flags: an argument left out that the body tests, a helper called with and without its flag, absent boolean fields', () => {
    const { pathCost, norm } = load(
      `
function norm(x, squared) { let s = 0; for (const v of x) s += v * v; return squared ? s : Math.sqrt(s); }
function pathCost(x, opts, closed) {
  let s = norm(x, opts.squared);
  if (closed) s += Math.abs(x[0] - x[x.length - 1]);
  if (!closed && opts.log === true) s = Math.log(1 + s);
  const keep = opts.squared ?? true;
  if (keep && closed !== undefined) s *= 1.5;
  return s * (opts.scale ?? 1) + norm(x);
}`,
      ['pathCost', 'norm'],
    );
    const x = [0.3, 0.7, -1.2];
    for (const args of [[x, { scale: 2, log: true }, true], [x, { squared: true }], [x, {}], [x, { log: true }, false]])
      checkProgram(pathCost, args, [0], { norm });
    // a parameter read without a test is still a missing argument
    const g = new Function('return function g(x, k) { return x * k; };')();
    expect(() => grad(g)(1.5)).toThrow(/'g' takes 2 arguments \(x, k\), but was called with 1/);
  });

  it('a string flag compared with a literal, left out or passed as undefined, is typed string (trial 25, R3)', () => {
    const { root, pick } = load(
      `
function root(a, b, c, which) {
  const disc = b * b - 4 * a * c;
  if (disc < 0) return null;
  const s = Math.sqrt(disc);
  return which === 'minus' ? (-b - s) / (2 * a) : (-b + s) / (2 * a);
}
function pick(x, mode) { switch (mode) { case 'sq': return x * x; default: return Math.sin(x); } }`,
      ['root', 'pick'],
    );
    for (const args of [[1, -3, 1], [1, -3, 1, undefined], [1, -3, 1, 'minus']]) checkProgram(root, args, [0, 1, 2]);
    for (const args of [[0.7], [0.7, 'sq']]) checkProgram(pick, args, [0]);
  });

  it('a destructured options parameter left out: fields whose defaults are not literals, or that have none, are typed by their uses (trial 25, R2)', () => {
    const { a1, a2 } = load(
      `
function a1(x, { scale = 2, shift = x * 0.5 } = {}) { return scale * x * x + shift; }
function a2(x, { scale = 2, log } = {}) { const y = scale * x; return log ? Math.log(y) : y * y; }`,
      ['a1', 'a2'],
    );
    for (const args of [[1.3], [1.3, { scale: 3 }], [1.3, { shift: 1 }]]) checkProgram(a1, args, [0]);
    for (const args of [[1.3], [1.3, { log: true }], [1.3, { scale: 0.5 }]]) checkProgram(a2, args, [0]);
  });

  it('a parameter no call passes, read only with a number in its place (`eps || 1e-5`, `opts = {}` read as `opts.g ?? 9.81`)', () => {
    const { center, fall } = load(
      `
function center(xs, eps) { const e = eps || 1e-5; let m = 0; for (const v of xs) m += v; m /= xs.length; return xs.map((v) => (v - m) / (1 + e)); }
function fall(v0, xs, opts = {}) {
  const g = opts.g ?? 9.81, dt = opts.dt || 0.01;
  const c = center(xs);
  let y = 0, v = v0;
  for (let i = 0; i < c.length; i++) { v -= (g + c[i]) * dt; y += v * dt; }
  return y;
}`,
      ['center', 'fall'],
    );
    checkProgram(fall, [2, [0.5, -0.25, 1]], [0, 1], { center });
  });

  it('a field of the element `find` gives (`rows.find(…).s`, no `!` in JavaScript): read at the index found', () => {
    const { pick } = load(
      `
function pick(xs, k) {
  const rows = xs.map((v, j) => ({ j, s: v * v }));
  return rows.find((e) => e.j === k).s * Math.log(1 + rows[0].s);
}`,
      ['pick'],
    );
    checkProgram(pick, [[1.5, 2, 0.5], 1], [0]);
  });

  it('a helper with a rest parameter, called with values and with a spread array', () => {
    const { score, lse, pieces, total } = load(
      `
function lse(...ts) { const m = Math.max(...ts); let s = 0; for (const t of ts) s += Math.exp(t - m); return m + Math.log(s); }
function score(x) { return lse(x[0], x[1] * x[2], Math.sin(x[2])) + lse(...x); }
function total(...xs) { let s = 0; for (const v of xs) s += v; return s; }
function pieces(p) { const out = []; for (let i = 0; i + 1 < p.length; i++) out.push(p[i] * p[i + 1], p[i]); return total(...out); }`,
      ['score', 'lse', 'pieces', 'total'],
    );
    checkProgram(score, [[0.3, -0.2, 0.9]], [0], { lse });
    // only ever called with a spread array: typed from its elements
    checkProgram(pieces, [[0.3, -0.2, 0.9, 0.4]], [0], { total });
  });

  it('empty array literals filled by index, or given empty rows that pushes fill (trial F)', () => {
    const { tally, gram } = load(
      `
function tally(a, b) {
  const counts = [];
  let s = 0;
  for (let i = 0; i < a.length; i++) {
    counts[i % 2] = (counts[i % 2] || 0) + a[i] * b[i];
    s += (a[i + 3] || b[i]) * a[i];
  }
  return s + counts[0] * counts[1];
}
function gram(xs, ell) {
  const K = [];
  for (let i = 0; i < xs.length; i++) {
    K.push([]);
    for (let j = 0; j < xs.length; j++) K[i].push(Math.exp(-0.5 * ((xs[i] - xs[j]) / ell) ** 2));
  }
  let s = 0;
  for (let i = 0; i < K.length; i++) for (let j = 0; j < i; j++) s += K[i][j] * K[j][i];
  return s;
}`,
      ['tally', 'gram'],
    );
    checkProgram(tally, [[1.5, -0.3, 2.5, 0.6, 3.25], [0.5, 2.0, 1.2, 1.0, 0.7]], [0, 1], {});
    checkProgram(gram, [[0.1, 0.5, 1.2, 2.0], 0.9], [0, 1], {});
  });

  it('a field or argument that is absent and used without a test → a located error, not NaN', () => {
    const f = new Function('return function f(x, o) { return x * o.k; };')();
    expect(() => grad(f)(1.5, {})).toThrow(/function\.ts:1:\d+: error: 'o\.k' has type 'number \| undefined' here: it may be absent/);
    expect(() => grad(f)(1.5, undefined)).toThrow(/function\.ts:1:\d+: error: property 'k' is not supported here/);
    // present, the same function compiles (another shape, another compilation)
    expect(grad(f)(1.5, { k: 3 })).toBe(3);
  });
});

describe('namespace objects in scope (numeric.js / gl-matrix style)', () => {
  const { f, vec, energy } = load(
    `
const vec = {
  dot(a, b) { let s = 0; for (let i = 0; i < a.length; i++) s += a[i] * b[i]; return s; },
  norm(a) { return Math.sqrt(this.dot(a, a)); },
  scale: (out, a, s) => { for (let i = 0; i < a.length; i++) out[i] = a[i] * s; return out; },
  sum: function (a) { let s = 0; for (const v of a) s += v; return s; },
};
function energy(x) { return vec.dot(x, x); }
function f(x, k) { const y = vec.scale([0, 0, 0], x, vec.norm(x) * k); return energy(y) + vec.sum(y); }`,
    ['f', 'vec', 'energy'],
  );

  it('members (methods, an arrow, a function expression) called as vec.m(…) and this.m(…), from the head and from a helper', () => {
    checkProgram(f, [[1, 2, 3], 0.5], [0, 1], { vec, energy });
  });

  it('the object used other than by calling its functions → an error naming it, with what to write', () => {
    const g = new Function('return function g(x) { const d = vec.dot; return d(x, x); };')();
    expect(() => grad(g, { scope: { vec } })([1, 2, 3])).toThrow(/scope entry 'vec', an object of functions, as a value \(`vec\.dot`\).*scope: \{ dot: vec\.dot \}/);
    const h = new Function('return function h(x) { return vec.cross(x, x); };')();
    expect(() => grad(h, { scope: { vec } })([1, 2, 3])).toThrow(/reads 'cross' of the scope entry 'vec'.*no such function \(it has dot, norm, scale, sum\)/);
  });

  it('an object mixing data and functions → an error saying to pass the data on its own', () => {
    const g = new Function('return function g(x) { return cfg.dot(x, x); };')();
    expect(() => grad(g, { scope: { cfg: { eps: 1, dot: (a: number[], b: number[]) => a[0] * b[0] } } })([1, 2])).toThrow(/scope entry 'cfg' mixes functions and data \('eps'\)/);
  });
});

describe('local functions with destructured parameters', () => {
  it('called directly, and passed to a helper (an RK4 right-hand side `(t, [x, v]) => …`)', () => {
    const { direct, pendulum, rk4 } = load(
      `
function rk4(f, t, y, h) { const k1 = f(t, y); const y2 = y.map((v, i) => v + h / 2 * k1[i]); const k2 = f(t + h / 2, y2); return y.map((v, i) => v + h * k2[i]); }
function direct(y, k) { const rhs = ([a, b]) => a * k + b; const g = ({ u, w }) => u * w; return rhs(y) + g({ u: y[0], w: k }); }
function pendulum(th0, g) { const rhs = (_t, [th, om]) => [om, -g * Math.sin(th)]; let y = [th0, 0]; for (let s = 0; s < 5; s++) y = rk4(rhs, 0, y, 0.1); return y[0]; }`,
      ['direct', 'pendulum', 'rk4'],
    );
    checkProgram(direct, [[1, 2], 3], [0, 1]);
    checkProgram(pendulum, [0.5, 9.81], [0, 1], { rk4 });
  });
});

describe('a function chosen by a condition (`var ease = quintic ? smoother : smooth`)', () => {
  it('between helpers in scope, typed from the calls of the chosen name; and between arrows', () => {
    const { blend, smooth, smoother, clipped } = load(
      `
function smooth(t) { return t * t * (3 - 2 * t); }
function smoother(t) { return t * t * t * (t * (6 * t - 15) + 10); }
function blend(a, b, t, quintic) { var ease = quintic ? smoother : smooth; var u = ease(Math.min(1, Math.max(0, t))); return a + (b - a) * u; }
function clipped(xs, soft) { const f = soft ? (v) => Math.tanh(v) : (v) => Math.max(-1, Math.min(1, v)); let s = 0; for (const x of xs) s += f(x) * x; return s; }`,
      ['blend', 'smooth', 'smoother', 'clipped'],
    );
    checkProgram(blend, [1, 3, 0.4, true], [0, 1, 2], { smooth, smoother });
    checkProgram(blend, [1, 3, 0.4, false], [0, 1, 2], { smooth, smoother });
    checkProgram(clipped, [[0.3, -0.5, 0.8], true], [0]);
    checkProgram(clipped, [[0.3, -0.5, 0.8], false], [0]);
  });
});

describe('arrays of records where only some records have a field', () => {
  const loss = new Function('return function loss(k, data) { return data.reduce((s, { t, y, weight }) => s + (weight ?? 1) * (Math.exp(-k * t) - y) ** 2, 0); };')();
  it('the field is optional (`weight?: number`), as the TypeScript twin declares it', () => {
    checkProgram(loss, [0.5, [{ t: 0, y: 1 }, { t: 1, y: 0.6, weight: 2 }, { t: 2, y: 0.3 }]], [0]);
  });
  it('a field of two types → an error saying where', () => {
    expect(() => grad(loss)(0.5, [{ t: 0, y: 1 }, { t: 'a', y: 2 }])).toThrow(/argument 2 \(data\) has a shape tsad cannot differentiate through \(data: its elements have different types/);
    expect(() => grad(loss)(0.5, [{ t: 0, y: 1 }, { t: null, y: 2 }])).toThrow(/\(data\[1\]\.t: null\)/);
  });
});

describe('a function that reads `arguments`', () => {
  it('is told to declare its parameters (not that options.wrt is malformed)', () => {
    const f = new Function('return function sumSquares() { let s = 0; for (let i = 0; i < arguments.length; i++) s += arguments[i] ** 2; return s; };')();
    expect(() => grad(f)(1, 2)).toThrow(/'sumSquares' declares no parameters \(reading `arguments` instead\?\)/);
  });
});

describe('variables and arguments TypeScript would type with literal elements (trial 27)', () => {
  // `A.map(… ? 1 : 0)` is `(0 | 1)[][]` to TypeScript's inference; plain JavaScript has no such type,
  // and storing any other number in it (or reassigning the variable) is valid there
  const { identityTimes, stored, passed, scalar, matmul, scaleFirst } = load(
    `
function matmul(A, B) { const C = []; for (let i = 0; i < A.length; i++) { const row = []; for (let j = 0; j < B[0].length; j++) { let s = 0; for (let t = 0; t < B.length; t++) s += A[i][t] * B[t][j]; row.push(s); } C.push(row); } return C; }
function scaleFirst(M, B) { M[0][0] = M[0][0] * B[0][0] + 0.5; return M; }
function identityTimes(A, B) { let R = A.map((r, i) => r.map((_, j) => (i === j ? 1 : 0))); R = matmul(R, B); return R[0][0] * A[0][1] + R[1][0]; }
function stored(A, B) { const I = A.map((r, i) => r.map((_, j) => (i === j ? 1 : 0))); I[0][1] = B[1][1] * 3; return I[0][1] * B[0][0] + I[1][1] * A[1][0]; }
function passed(A, B) { return scaleFirst(A.map((r, i) => r.map((_, j) => (i === j ? 1 : 0))), B)[0][0] * B[0][1]; }
function scalar(x) { let k = x.map((v) => (v > 1 ? 1 : 0))[0]; k = x[0] * 2; return k * x[1]; }`,
    ['identityTimes', 'stored', 'passed', 'scalar', 'matmul', 'scaleFirst'],
  );
  const A = [[1.5, -2], [0.7, 3]];
  const B = [[0.5, 1.2], [-0.8, 2.1]];
  it('a `let` initialised from map with a ternary of literals, reassigned from a helper', () => {
    checkProgram(identityTimes, [A, B], [0, 1], { matmul });
  });
  it('an element of such an array assigned another number', () => {
    checkProgram(stored, [A, B], [0, 1]);
  });
  it('such an array passed to a helper that stores into it', () => {
    checkProgram(passed, [A, B], [1], { scaleFirst });
  });
  it('a number taken out of such an array, reassigned', () => {
    checkProgram(scalar, [[2, 3]], [0]);
  });
});
