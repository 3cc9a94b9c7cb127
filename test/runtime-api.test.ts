// The runtime API (grad, valueAndGrad, jvp, vjp, jacobian) on plain JavaScript functions: arrows,
// function expressions and declarations; scalar, number[], number[][], Float64Array and object
// arguments; wrt by index, name and list; scope helpers and passive data; the compile cache; the
// Jacobian layout on both paths; errors. Results are compared with closed forms and with central divided
// differences computed here, independently of tsad's own validator.
import { type AnyFn, deepClone, dividedJacobian, flat } from './support/numeric.js';
import { describe, expect, it } from 'vitest';
import { grad, jacfwd, jacobian, jacrev, jvp, valueAndGrad, vjp } from '../src/index.js';

// ---------------------------------------------------------------------------------------------------
// independent numeric helpers

type V = number | Float64Array | V[] | { [k: string]: V };

/** a value of v's shape whose floats are fs (flat order) */
function unflat<T>(v: T, fs: number[]): T {
  let i = 0;
  const walk = (x: unknown): unknown => {
    if (typeof x === 'number') return fs[i++];
    if (x instanceof Float64Array) return x.map(() => fs[i++]);
    if (Array.isArray(x)) return x.map(walk);
    if (x && typeof x === 'object') {
      const r: Record<string, unknown> = {};
      for (const key of Object.keys(x).sort()) r[key] = walk((x as Record<string, unknown>)[key]);
      return Object.fromEntries(Object.keys(x).map((key) => [key, r[key]]));
    }
    return x;
  };
  return walk(v) as T;
}

/** central divided differences: J[i][j] = ∂ flat(f)_i / ∂ (flattened wrt args)_j */
function fdJacobian(f: AnyFn, args: unknown[], wrt: number[] = [0], own = false): number[][] {
  return dividedJacobian(f, args, wrt, 1e-5, own);
}

/** divided-difference gradient of a scalar f with respect to argument a, shaped like args[a] */
function fdGrad(f: AnyFn, args: unknown[], a = 0): unknown {
  return unflat(args[a], fdJacobian(f, args, [a])[0]);
}

/** same structure (kinds, lengths, keys) and floats within 1e-6 relative */
function expectClose(actual: unknown, expected: unknown, tol = 1e-6): void {
  const shape = (v: unknown): unknown =>
    typeof v === 'number' ? 'n' : v instanceof Float64Array ? `F${v.length}` : Array.isArray(v) ? v.map(shape) : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, shape((v as Record<string, unknown>)[k])])) : typeof v;
  expect(shape(actual)).toEqual(shape(expected));
  const a = flat(actual), e = flat(expected);
  for (let i = 0; i < e.length; i++) {
    const ok = Math.abs(a[i] - e[i]) <= tol * Math.max(1, Math.abs(e[i]));
    if (!ok) expect.fail(`float ${i}: got ${a[i]}, expected ${e[i]} (actual ${JSON.stringify(a)}, expected ${JSON.stringify(e)})`);
  }
}

const matVec = (J: number[][], v: number[]) => J.map((row) => row.reduce((s, x, j) => s + x * v[j], 0));
const vecMat = (u: number[], J: number[][]) => (J[0] ?? []).map((_, j) => J.reduce((s, row, i) => s + u[i] * row[j], 0));

// ---------------------------------------------------------------------------------------------------
// functions under test (plain JavaScript once the types are stripped)

const scalarArrow = (x: number) => x * Math.sin(x) + Math.exp(-x * x);
const scalarArrowD = (x: number) => Math.sin(x) + x * Math.cos(x) - 2 * x * Math.exp(-x * x);

const rosenbrock = function (x: number[]) {
  let s = 0;
  for (let i = 0; i + 1 < x.length; i++) s += 100 * (x[i + 1] - x[i] * x[i]) ** 2 + (1 - x[i]) ** 2;
  return s;
};
function rosenbrockGrad(x: number[]): number[] {
  const g = x.map(() => 0);
  for (let i = 0; i + 1 < x.length; i++) {
    g[i] += -400 * x[i] * (x[i + 1] - x[i] * x[i]) - 2 * (1 - x[i]);
    g[i + 1] += 200 * (x[i + 1] - x[i] * x[i]);
  }
  return g;
}

function logSumExp(x: number[], t: number) {
  let m = -Infinity;
  for (let i = 0; i < x.length; i++) m = Math.max(m, x[i]);
  let s = 0;
  for (let i = 0; i < x.length; i++) s += Math.exp(t * (x[i] - m));
  return m + Math.log(s) / t;
}

function weightedSquares(x: number[], y: number) {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i] * x[i] * y;
  return s;
}

const frobenius = (m: number[][], w: number) => {
  let s = 0;
  for (let i = 0; i < m.length; i++) for (let j = 0; j < m[i].length; j++) s += w * m[i][j] * m[i][j];
  return s;
};

const typedCos = (x: Float64Array) => {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += Math.cos(x[i]) * (i + 1);
  return s;
};

interface Model {
  w: number[];
  b: number;
}
const objLoss = (p: Model, x: number[]) => {
  let s = p.b;
  for (let i = 0; i < x.length; i++) s += p.w[i] * x[i];
  return Math.log(1 + Math.exp(-s));
};

// ---------------------------------------------------------------------------------------------------

describe('grad', () => {
  it('a function returning number | null: the gradient where it is a number, null where it is null', () => {
    function root(a: number, b: number, c: number) {
      const disc = b * b - 4 * a * c;
      if (disc < 0) return null;
      return (-b + Math.sqrt(disc)) / (2 * a);
    }
    // d/db of (-b + sqrt(b² - 4ac)) / 2a = (-1 + b / sqrt(b² - 4ac)) / 2a
    const g = grad(root, { wrt: 1 })(1, 3, 1) as number;
    expect(g).toBeCloseTo((-1 + 3 / Math.sqrt(5)) / 2, 12);
    expect(grad(root, { wrt: 1 })(1, 1, 1)).toBeNull();
    expect(valueAndGrad(root)(1, 1, 1)).toEqual([null, null]);
  });
  it('a function returning number | undefined (falling off its end): undefined where it is undefined, as for null (trial 25)', () => {
    function firstAbove(xs: number[], t: number) {
      for (let i = 0; i < xs.length; i++) if (xs[i] > t) return xs[i] * t;
      return undefined;
    }
    expect(grad(firstAbove, { wrt: [0, 1] })([0.5, 2], 1)).toEqual([[0, 1], 2]);
    expect(grad(firstAbove, { wrt: [0, 1] })([0.5, 2], 3)).toBeUndefined();
    expect(valueAndGrad(firstAbove)([0.5, 2], 3)).toEqual([undefined, undefined]);
  });
  it('scalar arrow function: closed form and divided differences', () => {
    for (const x of [-1.3, 0.2, 2.5]) {
      expectClose(grad(scalarArrow)(x), scalarArrowD(x));
      expectClose(grad(scalarArrow)(x), fdGrad(scalarArrow, [x]));
    }
  });

  it('function expression over number[] (Rosenbrock): closed form', () => {
    const x = [-1.2, 1, 0.5, 0.8];
    const g = grad(rosenbrock)(x);
    expect(Array.isArray(g)).toBe(true);
    expectClose(g, rosenbrockGrad(x));
    expectClose(g, fdGrad(rosenbrock, [x]));
  });

  it('function declaration passed as a value, wrt defaults to the first argument', () => {
    const x = [0.3, -0.7, 1.1], t = 1.7;
    const g = grad(logSumExp)(x, t);
    expectClose(g, fdGrad(logSumExp, [x, t]));
    // softmax(t·x) sums to one
    expect(flat(g).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
  });

  it('number[][] argument: gradient shaped like the matrix', () => {
    const m = [[1, 2, 3], [-4, 0.5, 6]];
    const g = grad(frobenius)(m, 0.5) as number[][];
    expectClose(g, m.map((r) => r.map((v) => 2 * 0.5 * v)));
  });

  it('Float64Array argument: gradient is a Float64Array', () => {
    const x = new Float64Array([0.1, 0.7, -2]);
    const g = grad(typedCos)(x);
    expect(g).toBeInstanceOf(Float64Array);
    expectClose(g, Float64Array.from(x, (v, i) => -Math.sin(v) * (i + 1)));
  });

  it('object argument: gradient is an object with the same fields', () => {
    const p = { w: [0.5, -0.25, 1], b: 0.1 }, x = [1, 2, -1];
    const g = grad(objLoss)(p, x) as Model;
    expect(Object.keys(g).sort()).toEqual(['b', 'w']);
    expectClose(g, fdGrad(objLoss, [p, x]));
    // closed form: dL/ds = -σ(-s)
    const s = 0.1 + 0.5 - 0.5 - 1;
    const ds = -1 / (1 + Math.exp(s));
    expectClose(g, { w: x.map((v) => v * ds), b: ds });
  });

  it('leaves the arguments untouched, even when f writes into them', () => {
    const f = (x: number[]) => {
      x[0] = x[0] * 3;
      return x[0] * x[1];
    };
    const x = [2, 5];
    expectClose(grad(f)(x), [15, 6]);
    expect(x).toEqual([2, 5]);
  });

  it('wrt by index, by name and as a list', () => {
    const x = [1, 2, 3], y = 2;
    const gx = x.map((v) => 2 * v * y), gy = x.reduce((s, v) => s + v * v, 0);
    expectClose(grad(weightedSquares)(x, y), gx);
    expectClose(grad(weightedSquares, { wrt: 0 })(x, y), gx);
    expectClose(grad(weightedSquares, { wrt: 1 })(x, y), gy);
    expectClose(grad(weightedSquares, { wrt: 'y' })(x, y), gy);
    expectClose(grad(weightedSquares, { wrt: 'x' })(x, y), gx);
    expectClose(grad(weightedSquares, { wrt: [0, 'y'] })(x, y), [gx, gy]);
    expectClose(grad(weightedSquares, { wrt: ['y', 'x'] })(x, y), [gy, gx]);
    expectClose(grad(weightedSquares, { wrt: ['y'] })(x, y), [gy]);
    expectClose(grad(weightedSquares, { wrt: [1] })(x, y), [gy]);
  });

  it('several scalar independents', () => {
    const f = (a: number, b: number, c: number) => a * Math.exp(b) + Math.sin(a * c);
    const [a, b, c] = [0.4, -0.3, 1.7];
    expectClose(grad(f, { wrt: [0, 1, 2] })(a, b, c), [Math.exp(b) + c * Math.cos(a * c), a * Math.exp(b), a * Math.cos(a * c)]);
    expectClose(grad(f, { wrt: ['a', 'c'] })(a, b, c), [Math.exp(b) + c * Math.cos(a * c), a * Math.cos(a * c)]);
  });

  it('scalar independents listed out of parameter order', () => {
    const f = (a: number, b: number, c: number) => a * Math.exp(b) + Math.sin(a * c);
    const [a, b, c] = [0.4, -0.3, 1.7];
    expectClose(grad(f, { wrt: ['c', 'a'] })(a, b, c), [a * Math.cos(a * c), Math.exp(b) + c * Math.cos(a * c)]);
  });

  it('passive boolean and string-flag arguments', () => {
    const f = (x: number, square: boolean, mode: string) => (square ? x * x : x) * (mode === 'double' ? 2 : 1);
    expectClose(grad(f)(3, true, 'double'), 12);
    expectClose(grad(f)(3, false, 'single'), 1);
  });

  it('unknown wrt → error naming it and listing the parameters', () => {
    expect(() => grad(weightedSquares, { wrt: 'z' })([1], 2)).toThrow(/'z'.*x, y/);
    expect(() => grad(weightedSquares, { wrt: 5 })([1], 2)).toThrow(/not a parameter/);
  });
});

describe('valueAndGrad', () => {
  it('returns the value and the gradient', () => {
    const x = [-1.2, 1, 0.5];
    const [v, g] = valueAndGrad(rosenbrock)(x);
    expect(v).toBe(rosenbrock(x));
    expectClose(g, rosenbrockGrad(x));
  });

  it('with a wrt list', () => {
    const [v, g] = valueAndGrad(weightedSquares, { wrt: ['x', 'y'] })([1, 2], 3);
    expect(v).toBe(15);
    expectClose(g, [[6, 12], 5]);
  });

  it('object and Float64Array arguments', () => {
    const p = { w: [0.2, 0.4], b: -1 }, x = [3, -1];
    const [v, g] = valueAndGrad(objLoss)(p, x);
    expect(v).toBe(objLoss(p, x));
    expectClose(g, fdGrad(objLoss, [p, x]));
    const t = new Float64Array([1, 2, 3]);
    const [vt, gt] = valueAndGrad(typedCos)(t);
    expect(vt).toBe(typedCos(t));
    expect(gt).toBeInstanceOf(Float64Array);
  });
});

describe('jvp', () => {
  it('scalar function of a vector: J·v', () => {
    const x = [-1.2, 1, 0.5], v = [0.3, -1, 2];
    const [y, t] = jvp(rosenbrock, [x], [v]);
    expect(y).toBe(rosenbrock(x));
    expectClose(t, matVec(fdJacobian(rosenbrock, [x]), v)[0]);
  });

  it('vector-valued function: tangent shaped like the output', () => {
    const f = (x: number[]) => [x[0] * x[1], Math.sin(x[0]), x[1] * x[1] * x[2]];
    const x = [0.5, 2, -1], v = [1, -2, 0.5];
    const [y, t] = jvp(f, [x], [v]);
    expect(y).toEqual(f(x));
    expectClose(t, matVec(fdJacobian(f, [x]), v));
  });

  it('tangents for several wrt arguments (scalars, a list)', () => {
    const f = (x: number, y: number) => x * y + Math.exp(x);
    const [y, t] = jvp(f, [2, 3], [1, 10], { wrt: [0, 1] });
    expect(y).toBe(f(2, 3));
    expectClose(t, 3 + Math.exp(2) + 10 * 2);
    const [, t2] = jvp(weightedSquares, [[1, 2], 3], [[1, 1], 0.5], { wrt: ['x', 'y'] });
    expectClose(t2, 2 * 3 * (1 + 2) + 0.5 * 5);
  });

  it('Float64Array, matrix and object arguments', () => {
    const x = new Float64Array([0.1, 0.7, -2]), v = new Float64Array([1, 0.5, -1]);
    expectClose(jvp(typedCos, [x], [v])[1], matVec(fdJacobian(typedCos, [x]), [...v])[0]);
    const m = [[1, 2], [3, 4]], dm = [[0.5, 0], [0, -1]];
    expectClose(jvp(frobenius, [m, 2], [dm])[1], 2 * 2 * (1 * 0.5 - 4));
    const p = { w: [0.5, -0.25], b: 0.1 }, dp = { w: [1, 0], b: 2 }, xs = [1, 2];
    expectClose(jvp(objLoss, [p, xs], [dp])[1], matVec(fdJacobian(objLoss, [p, xs]), flat(dp))[0]);
  });

  it('does not modify primals or tangents', () => {
    const x = [0.5, 2], v = [1, 1];
    jvp((a: number[]) => [a[0] * a[1], a[1]], [x], [v]);
    expect(x).toEqual([0.5, 2]);
    expect(v).toEqual([1, 1]);
  });
});

describe('vjp', () => {
  it('scalar output: the pullback scales the gradient', () => {
    const x = [-1.2, 1, 0.5];
    const [y, back] = vjp(rosenbrock, [x]);
    expect(y).toBe(rosenbrock(x));
    expectClose(back(2), rosenbrockGrad(x).map((g) => 2 * g));
    expectClose(back(1), rosenbrockGrad(x)); // the pullback can be called again
  });

  it('vector output: ūᵀJ', () => {
    const f = (x: number[]) => [x[0] * x[1], Math.sin(x[0]), x[1] * x[1] * x[2], x[2]];
    const x = [0.5, 2, -1], u = [1, -2, 0.5, 3];
    const [y, back] = vjp(f, [x]);
    expect(y).toEqual(f(x));
    expectClose(back(u), vecMat(u, fdJacobian(f, [x])));
    const u2 = [0, 1, 0, 0];
    expectClose(back(u2), vecMat(u2, fdJacobian(f, [x])));
    expect(u).toEqual([1, -2, 0.5, 3]); // the cotangent is not consumed in place
  });

  it('wrt list: one gradient per wrt argument', () => {
    const f = (x: number[], y: number) => [x[0] * y, y * y, x[1]];
    const [, back] = vjp(f, [[2, 3], 4], { wrt: [0, 'y'] });
    // u = [1, 2, 5]: ∂/∂x = [y, 5] = [4, 5], ∂/∂y = x0 + 2·2y = 2 + 16
    expectClose(back([1, 2, 5]), [[4, 5], 18]);
  });

  it('Float64Array output and input', () => {
    const f = (x: Float64Array) => {
      const r = new Float64Array(2);
      r[0] = x[0] * x[1];
      r[1] = Math.exp(x[1]);
      return r;
    };
    const x = new Float64Array([2, 0.5]);
    const [, back] = vjp(f, [x]);
    const g = back(new Float64Array([1, 1]));
    expect(g).toBeInstanceOf(Float64Array);
    expectClose(g, new Float64Array([0.5, 2 + Math.exp(0.5)]));
  });
});

describe('jacobian', () => {
  // m < n: one adjoint per row
  const wide = (x: number[]) => [x[0] * x[1] * x[2], x[0] + Math.sin(x[2]), x[3] * x[3]];
  const wideJ = (x: number[]) => [
    [x[1] * x[2], x[0] * x[2], x[0] * x[1], 0],
    [1, 0, Math.cos(x[2]), 0],
    [0, 0, 0, 2 * x[3]],
  ];
  // m > n: one tangent per column
  const tall = (x: number[]) => [x[0] * x[1], Math.sin(x[0]), x[1] * x[1], 3 * x[0] - x[1], Math.exp(x[1])];
  const tallJ = (x: number[]) => [
    [x[1], x[0]],
    [Math.cos(x[0]), 0],
    [0, 2 * x[1]],
    [3, -1],
    [0, Math.exp(x[1])],
  ];

  it('m ≤ n (adjoint rows): J[i][j] = ∂out_i/∂in_j', () => {
    const x = [1.5, -2, 0.3, 4];
    const J = jacobian(wide)(x);
    expect(J.length).toBe(3);
    expect(J.every((r) => r.length === 4)).toBe(true);
    expectClose(J, wideJ(x));
    expectClose(J, fdJacobian(wide, [x], [0], true));
  });

  it('m > n (tangent columns): J[i][j] = ∂out_i/∂in_j', () => {
    const x = [0.7, -1.1];
    const J = jacobian(tall)(x);
    expect(J.length).toBe(5);
    expect(J.every((r) => r.length === 2)).toBe(true);
    expectClose(J, tallJ(x));
    expectClose(J, fdJacobian(tall, [x], [0], true));
  });

  it('square and scalar-output Jacobians', () => {
    const sq = (x: number[]) => [x[0] * x[1], x[0] - x[1]];
    expectClose(jacobian(sq)([2, 3]), [[3, 2], [1, -1]]);
    const x = [-1.2, 1, 0.5];
    expectClose(jacobian(rosenbrock)(x), [rosenbrockGrad(x)]);
    expectClose(jacobian(scalarArrow)(0.8), [[scalarArrowD(0.8)]]);
  });

  it('scalar input, vector output (m > n = 1)', () => {
    const f = (t: number) => [Math.cos(t), Math.sin(t), t * t];
    expectClose(jacobian(f)(0.4), [[-Math.sin(0.4)], [Math.cos(0.4)], [0.8]]);
  });

  it('several wrt arguments: columns concatenated in wrt order, both paths', () => {
    const f = (x: number[], y: number) => [x[0] * y, x[1] * y, y * y, x[0] * x[1]];
    const x = [2, 3], y = 5;
    const expected = [
      [5, 0, 2],
      [0, 5, 3],
      [0, 0, 10],
      [3, 2, 0],
    ];
    expectClose(jacobian(f, { wrt: [0, 1] })(x, y), expected); // m = 4 > n = 3
    const g = (x: number[], y: number) => [x[0] * y + x[1], y * y];
    expectClose(jacobian(g, { wrt: ['x', 'y'] })(x, y), [[5, 1, 2], [0, 0, 10]]); // m = 2 < n = 3
    expectClose(jacobian(g, { wrt: ['y', 'x'] })(x, y), [[2, 5, 1], [10, 0, 0]]);
  });

  it('matrix input and output flattened row by row', () => {
    const f = (m: number[][]) => [m[0][0] * m[1][1], m[0][1] - m[1][0]]; // m = 2 < n = 4
    expectClose(jacobian(f)([[1, 2], [3, 4]]), [[4, 0, 0, 1], [0, 1, -1, 0]]);
    const g = (x: number[]) => [[x[0], x[1]], [x[0] * x[1], 2 * x[0]]]; // m = 4 > n = 2
    expectClose(jacobian(g)([1, 2]), [[1, 0], [0, 1], [2, 1], [2, 0]]);
    const h = (x: number[]) => {
      const r = [[0, 0]];
      r[0][0] = x[0] * x[1];
      r[0][1] = x[2];
      return r;
    }; // matrix output, m = 2 < n = 3
    expectClose(jacobian(h)([1, 2, 3]), [[2, 1, 0], [0, 0, 1]]);
  });

  it('matrix output written as a nested literal, adjoint path', () => {
    const h = (x: number[]) => [[x[0] * x[1], x[2]]];
    expectClose(jacobian(h)([1, 2, 3]), [[2, 1, 0], [0, 0, 1]]);
  });

  it("object input: fields in the argument's own key order, both paths", () => {
    const p = { b: 1, a: 2 };
    expectClose(jacobian((q: { b: number; a: number }) => [q.b * 2 + q.a * 3])(p), [[2, 3]]);
    expectClose(jacobian((q: { b: number; a: number }) => [q.b * 2, q.a * 3, q.a * q.b])(p), [[2, 0], [0, 3], [2, 1]]);
    // (the order the caller wrote, whatever the order the function's type declares)
    expectClose(jacobian((q: { a: number; b: number }) => [q.b * 2 + q.a * 3])({ b: 1, a: 2 }), [[2, 3]]);
  });

  it('Float64Array input and output', () => {
    const f = (x: Float64Array) => {
      const r = new Float64Array(3);
      r[0] = x[0];
      r[1] = x[1] * x[0];
      r[2] = 5 * x[1];
      return r;
    };
    expectClose(jacobian(f)(new Float64Array([1, 2])), [[1, 0], [2, 1], [0, 5]]);
  });

  it('agrees with divided differences at random points, both paths', () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) * 2 - 1;
    for (let k = 0; k < 5; k++) {
      const x4 = [rand(), rand(), rand(), rand()];
      expectClose(jacobian(wide)(x4), fdJacobian(wide, [x4], [0], true));
      const x2 = [rand(), rand()];
      expectClose(jacobian(tall)(x2), fdJacobian(tall, [x2], [0], true));
    }
  });
});

describe('defaulted parameters left out', () => {
  it('take a zero derivative in every mode (the tangent of a number defaulted in the signature is 0, not undefined)', () => {
    const g = (x: number, k = 2) => x * Math.sin(k) + k * x * x;
    const want = Math.sin(2) + 4 * 1.3;
    expect(grad(g)(1.3)).toBeCloseTo(want, 12);
    expect(jvp(g, [1.3], [1])[1]).toBeCloseTo(want, 12);
    expectClose(jacfwd(g)(1.3), [[want]], 1e-12);
  });
  it('a default computed from another parameter is computed where the argument is left out, with its derivative', () => {
    function f(x: number, y = x * 2) {
      return x * y;
    }
    expect(grad(f)(1.3)).toBeCloseTo(4 * 1.3, 12);
    expect(grad(f, { wrt: ['x', 'y'] })(1.3, 0.5)).toEqual([0.5, 1.3]);
  });
  // (found by the fuzzer's plain-js property: jacrev gave the left-out number a column of zeros, and
  // the columns after it, read in the arguments' own order, shifted by one: the last one was dropped)
  it('an independent left out has no column in jacrev and jacobian, as in jacfwd, and a number in grad', () => {
    function f(x: number, y: number | undefined, b: number[]) {
      return x * b[0] + (y ?? 0.5) * b[1];
    }
    expect(jacfwd(f, { wrt: ['x', 'y', 'b'] })(2, undefined, [3, 4])).toEqual([[3, 2, 0.5]]);
    for (const api of [jacrev, jacobian]) expect(api(f, { wrt: ['x', 'y', 'b'] })(2, undefined, [3, 4])).toEqual([[3, 2, 0.5]]);
    // (f_b returns the numbers of x and y as a pair: x's gradient was read as the pair)
    expect(grad(f, { wrt: ['x', 'y', 'b'] })(2, undefined, [3, 4])).toEqual([3, 0, [2, 0.5]]);
  });
});

describe('jacfwd and jacrev', () => {
  // each function with a point and the options to take it at; both modes must give the divided differences
  const cases: [string, (...a: never[]) => unknown, unknown[], { wrt?: number[] }][] = [
    ['wide', (x: number[]) => [x[0] * x[1] * x[2], x[0] + Math.sin(x[2]), x[3] * x[3]], [[1.5, -2, 0.3, 4]], {}],
    ['tall', (x: number[]) => [x[0] * x[1], Math.sin(x[0]), x[1] * x[1], Math.exp(x[1])], [[0.7, -1.1]], {}],
    ['scalar in and out', (t: number) => Math.sin(t) * t, [0.4], {}],
    ['a number and an array', (x: number[], y: number) => [x[0] * y, x[1] * y, y * y, x[0] * x[1]], [[2, 3], 5], { wrt: [0, 1] }],
    ['matrix in, matrix out', (m: number[][]) => [[m[0][0] * m[1][1], m[0][1]], [m[1][0] * m[0][0], 2]], [[[1, 2], [3, 4]]], {}],
    ['object fields', (q: { b: number; a: number }) => [q.b * 2, q.a * 3, q.a * q.b], [{ b: 1, a: 2 }], {}],
    ['Float64Array', (x: Float64Array) => {
      const r = new Float64Array(2);
      r[0] = x[0] * x[1];
      r[1] = Math.cos(x[1]);
      return r;
    }, [new Float64Array([1, 2])], {}],
  ];
  for (const [name, f, args, opts] of cases)
    it(`${name}: both modes give the divided differences`, () => {
      const want = fdJacobian(f as AnyFn, args, opts.wrt ?? [0], true);
      const fwd = jacfwd(f, opts as never)(...(args as never[]));
      const rev = jacrev(f, opts as never)(...(args as never[]));
      expectClose(fwd, want);
      expectClose(rev, want);
      expectClose(fwd, rev, 1e-12);
    });

  it('more inputs than one vector sweep carries (the columns come in blocks)', () => {
    // a banded map of 75 inputs: ∂y_i/∂x_i = 2 x_i x_{i+1}, ∂y_i/∂x_{i+1} = x_i², the last y_i = x_i³
    const f = (x: number[]) => x.map((v, i) => (i + 1 < x.length ? v * v * x[i + 1] : v * v * v));
    const x = Array.from({ length: 75 }, (_, i) => Math.cos(i));
    const J = jacfwd(f)(x);
    expect([J.length, J[0].length]).toEqual([75, 75]);
    for (let i = 0; i < 75; i++)
      for (let j = 0; j < 75; j++) {
        const want = i + 1 < 75 ? (j === i ? 2 * x[i] * x[i + 1] : j === i + 1 ? x[i] * x[i] : 0) : j === i ? 3 * x[i] * x[i] : 0;
        expect(J[i][j]).toBeCloseTo(want, 12);
      }
    expectClose(jacrev(f)(x), J, 1e-12);
  });

  it('a helper with only a tangent rule gives jacfwd; jacrev says what is missing', () => {
    const sq = (t: number) => t * t;
    const f = (x: number[]) => [sq(x[0]) * x[1], x[1]];
    const opts = { scope: { sq }, customDerivatives: { sq: { tangent: (t: number, td: number) => [t * t, 2 * t * td] } } };
    expectClose(jacfwd(f, opts)([3, 2]), [[12, 9], [0, 1]]);
    expect(() => jacrev(f, opts)([3, 2])).toThrow(/jacrev: 'f' has no adjoint .*use jacfwd/);
  });
});

describe('scope', () => {
  it('helper functions calling each other, and data read at each call (not inlined)', () => {
    const W = [1, 2, 3];
    const f = (x: number[]) => {
      let s = 0;
      for (let i = 0; i < x.length; i++) s += helper(W[i], x[i]);
      return s;
    };
    function helper(a: number, b: number) {
      return sq(a * b) + OFFSET * b;
    }
    const sq = (t: number) => t * t;
    const scope: Record<string, unknown> = { helper, sq, W, OFFSET: 0.5 };
    const x = [1, -1, 2];
    // d/dx_i [ (W_i x_i)² + c x_i ] = 2 W_i² x_i + c
    const expected = () => x.map((v, i) => 2 * W[i] * W[i] * v + (scope.OFFSET as number));
    expectClose(grad(f, { scope })(x), expected());
    W[0] = 10; // same array, new contents
    expectClose(grad(f, { scope })(x), expected());
    expect((grad(f, { scope })(x) as number[])[0]).toBeCloseTo(200.5, 10);
    scope.OFFSET = -3; // a number in scope, changed between calls
    expectClose(grad(f, { scope })(x), expected());
    // a fresh scope object with a different array of the same shape
    expectClose(grad(f, { scope: { helper, sq, W: [0, 0, 1], OFFSET: 0 } })(x), [0, 0, 4]);
  });

  it('data in scope as Float64Array and number[][]', () => {
    const A = [[1, 2], [3, 4]];
    const D = new Float64Array([7, -1]);
    const f = (x: number[]) => {
      let s = 0;
      for (let i = 0; i < A.length; i++) {
        let r = 0;
        for (let j = 0; j < x.length; j++) r += A[i][j] * x[j];
        s += D[i] * r * r;
      }
      return s;
    };
    const scope = { A, D };
    const x = [1, 1];
    const closed = () => {
      const r = A.map((row) => row[0] * x[0] + row[1] * x[1]);
      return [0, 1].map((j) => A.reduce((s, row, i) => s + 2 * D[i] * r[i] * row[j], 0));
    };
    expectClose(grad(f, { scope })(x), closed());
    A[1][0] = -5;
    D[0] = 0.25;
    expectClose(grad(f, { scope })(x), closed());
  });

  it('helpers over arrays, through a chain of helpers', () => {
    const f = (x: number[]) => outer(x) + 1;
    const outer = (v: number[]) => inner(v, 2);
    const inner = (v: number[], c: number) => c * norm2(v);
    function norm2(v: number[]) {
      let s = 0;
      for (let i = 0; i < v.length; i++) s += v[i] * v[i];
      return s;
    }
    expectClose(grad(f, { scope: { outer, inner, norm2 } })([3, 4]), [12, 16]);
    expectClose(jacobian(f, { scope: { outer, inner, norm2 } })([3, 4]), [[12, 16]]);
  });

  it('scope works with every entry point', () => {
    const k = [2];
    const f = (x: number) => [K[0] * x, x * x];
    const scope = { K: k };
    expectClose(jvp(f, [3], [1], { scope })[1], [2, 6]);
    expectClose(vjp(f, [3], { scope })[1]([1, 1]), 8);
    expectClose(jacobian(f, { scope })(3), [[2], [6]]);
    k[0] = -1;
    expectClose(jvp(f, [3], [1], { scope })[1], [-1, 6]);
    expectClose(jacobian(f, { scope })(3), [[-1], [6]]);
    const g = (x: number) => K[0] * x * x;
    expectClose(valueAndGrad(g, { scope })(3), [-9, -6]);
  });

  it('a different helper under the same name is compiled anew', () => {
    const uses = (x: number) => h(x);
    expect(grad(uses, { scope: { h: (a: number) => a * 2 } })(1)).toBe(2);
    expect(grad(uses, { scope: { h: (a: number) => a * 3 } })(1)).toBe(3);
  });

  it('an unused helper in scope is ignored', () => {
    expect(grad((x: number) => x * x, { scope: { unused: (a: number) => a + 1 } })(2)).toBe(4);
  });

  it('scope data named like generated variables (temp, tape)', () => {
    expectClose(grad((x: number) => temp * Math.exp(x) * Math.exp(x), { scope: { temp: 5 } })(0), 10);
    expectClose(grad((x: number) => tape[0] * x * x, { scope: { tape: [2] } })(3), 12);
  });

  // the generated code imports the runtime under other names then (Tape0)
  it('scope data and head functions named like runtime exports', () => {
    expectClose(grad((x: number) => Tape[0] * x * x, { scope: { Tape: [2] } })(3), 12);
    expectClose(grad((x: number[]) => zerosLike * x[0] * x[1], { scope: { zerosLike: 3 } })([2, 5]), [15, 6]);
  });
  it('a head function named Tape', () => {
    const Tape = (x: number) => x * x;
    expectClose(grad(Tape)(3), 6);
  });
});

describe('compile cache', () => {
  const sumSq = (x: number[] | Float64Array) => {
    let s = 0;
    for (let i = 0; i < x.length; i++) s += x[i] * x[i];
    return s;
  };

  it('same function, different shapes → recompiled correctly', () => {
    const g = grad(sumSq);
    expectClose(g([1, 2]), [2, 4]);
    expectClose(g([1, 2, 3]), [2, 4, 6]);
    const t = g(new Float64Array([1, -1, 0.5, 2]));
    expect(t).toBeInstanceOf(Float64Array);
    expectClose(t, new Float64Array([2, -2, 1, 4]));
    expectClose(g([5]), [10]);
    expectClose(g([1, 2]), [2, 4]); // back to the first shape (cached)
    expectClose(g([]), []);
  });

  it('same function, object arguments of different shapes', () => {
    const f = (p: { a: number; v: number[] }) => p.a * p.v[0];
    expectClose(grad(f)({ a: 2, v: [3] }), { a: 3, v: [2] });
    expectClose(grad(f)({ a: 2, v: [3, 4, 5] }), { a: 3, v: [2, 0, 0] });
  });

  it('same function, different wrt and entry points', () => {
    expectClose(grad(weightedSquares, { wrt: 0 })([1, 2], 3), [6, 12]);
    expectClose(grad(weightedSquares, { wrt: 1 })([1, 2], 3), 5);
    expectClose(grad(weightedSquares, { wrt: [1, 0] })([1, 2], 3), [5, [6, 12]]);
    expectClose(jacobian(weightedSquares, { wrt: [0, 1] })([1, 2], 3), [[6, 12, 5]]);
    expectClose(grad(weightedSquares)([1, 2, 3, 4], 1), [2, 4, 6, 8]);
  });

  it('scope data of a different shape → recompiled', () => {
    const f = (x: number) => {
      let s = 0;
      for (let i = 0; i < C.length; i++) s += C[i] * x;
      return s;
    };
    expectClose(grad(f, { scope: { C: [1, 2] } })(1), 3);
    expectClose(grad(f, { scope: { C: [1, 2, 3] } })(1), 6);
    expectClose(grad(f, { scope: { C: new Float64Array([4]) } })(1), 4);
  });
});

describe('errors', () => {
  const located = /\S+\.ts:\d+:\d+/;

  it('unsupported code → Error with file:line:col and a hint', () => {
    const f = (x: number) => {
      let s = 0;
      try {
        s = x * x;
      } catch {
        s = 0;
      }
      return s;
    };
    let err: unknown;
    try {
      grad(f)(1);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(Error);
    const msg = (err as Error).message;
    expect(msg).toMatch(located);
    expect(msg).toMatch(/try/);
    expect(msg).toMatch(/hint: /);
    expect(msg).toMatch(/\^/); // the code frame
  });

  it('array methods and non-determinism are rejected with located hints', () => {
    // (numbers sorted by `a - b` differentiate; another comparator is refused, located)
    expect(grad((x: number[]) => x.slice().sort((a, b) => a - b)[0])([2, 1])).toEqual([0, 1]);
    expect(() => grad((x: number[]) => x.slice().sort((a, b) => a * b)[0])([1])).toThrow(located);
    expect(() => grad((x: number[]) => x.slice().sort((a, b) => a * b)[0])([1])).toThrow(/\(a, b\) => a - b/);
    expect(() => grad((x: number) => x * Math.random())(1)).toThrow(located);
    expect(() => jacobian((x: number) => [x * Math.random()])(1)).toThrow(/random/i);
    expect(() => jvp((x: number) => x * Math.random(), [1], [1])).toThrow(/hint: /);
    expect(() => vjp((x: number) => x * Math.random(), [1])).toThrow(/hint: /);
  });

  it('a free identifier missing from scope → error naming it', () => {
    const f = (x: number) => x * missingWeight;
    expect(() => grad(f)(1)).toThrow(/missingWeight/);
    expect(() => grad(f)(1)).toThrow(located);
    const g = (x: number) => x * missingHelper(x);
    expect(() => grad(g, { scope: { unrelated: 1 } })(1)).toThrow(/missingHelper/);
  });

  it('a class in scope is compiled with the function (its field and parameter types from its use)', () => {
    class Spring {
      pos: number;
      constructor(pos: number) {
        this.pos = pos;
      }
      pull(k: number): void {
        this.pos -= k * this.pos;
      }
    }
    const f = (x: number) => {
      const s = new Spring(x);
      s.pull(0.5);
      return s.pos;
    };
    // (the class as vitest compiled it, with its `pos;` field declaration): pos − 0.5·pos = 0.5·x
    expect(grad(f, { scope: { Spring } })(1)).toBeCloseTo(0.5, 12);
    expect(grad(f, { scope: { Spring } })(0.25)).toBeCloseTo(0.5, 12);
  });

  it('a function that returns no number → error', () => {
    expect(() => grad((x: number) => String(x).length > 1)(1)).toThrow(Error);
  });

  it('methods are read as functions; getters and bound functions are rejected with an Error', () => {
    const o = {
      m(x: number) {
        return x * x;
      },
      get g() {
        return 1;
      },
    };
    expectClose(grad(o.m)(3), 6);
    const getter = Object.getOwnPropertyDescriptor(o, 'g')!.get as unknown as (x: number) => number;
    expect(() => grad(getter)(3)).toThrow(/function expression, arrow function, function declaration or method/);
    expect(() => grad(((x: number) => x * x).bind(null))(3)).toThrow(Error);
  });

  it('arguments tsad cannot type → error naming the argument', () => {
    expect(() => grad((x: number, y: unknown) => x)(1, [1, 'a'])).toThrow(/argument 2 \(y\)/);
  });

  it('one-parameter arrow without parentheses', () => {
    // written through new Function so that no formatter adds parentheses
    const f = new Function('return x => x * x * x')() as (x: number) => number;
    expect(f.toString()).toBe('x => x * x * x');
    expectClose(grad(f)(2), 12);
  });

  it('default parameter omitted by the caller', () => {
    const f = (x: number, c = 2) => c * x * x;
    expectClose(grad(f)(3), 12);
  });

  it('recursive function declaration', () => {
    function power(x: number, n: number): number {
      return n === 0 ? 1 : x * power(x, n - 1);
    }
    expectClose(grad(power)(2, 3), 12);
  });
  it('mutually recursive helpers in scope', () => {
    const ev = (x: number, n: number): number => (n === 0 ? 1 : x * od(x, n - 1));
    const od = (x: number, n: number): number => (n === 0 ? 1 : x * ev(x, n - 1));
    expectClose(grad((x: number) => ev(x, 4), { scope: { ev, od } })(2), 32);
  });
});

// free identifiers referenced only inside source that tsad reads (never evaluated here)
declare const missingWeight: number;
declare const missingHelper: (x: number) => number;
declare const h: (x: number) => number;
declare const OFFSET: number;
declare const K: number[];
declare const C: number[];
declare const temp: number;
declare const tape: number[];
declare const zerosLike: number;
declare const Tape: number[];

describe('the compiled-derivative cache', () => {
  // (it once keyed an array by its first element: a later call whose second element was undefined or
  // lacked a field reused the code compiled for the first, and returned NaN without a word)
  it('does not reuse code compiled for an array whose later elements had another shape', () => {
    const weighted = new Function('ps', 'let s = 0; for (const p of ps) s += p.x * (p.z ?? 2); return s;') as (ps: { x: number; z?: number }[]) => number;
    const vg = valueAndGrad(weighted);
    const [v] = vg([{ x: 3, z: 1 }, { x: 2, z: 4 }, { x: 5, z: 0.5 }]);
    expect(v).toBeCloseTo(13.5, 12);
    for (const mixed of [[{ x: 3, z: 1 }, { x: 2, z: undefined }, { x: 5, z: 0.5 }], [{ x: 3, z: 1 }, { x: 2 }, { x: 5, z: 0.5 }]]) {
      let value: number | undefined;
      try {
        [value] = vg(mixed);
      } catch {
        continue; // refused: fine; a value must otherwise be the function's own
      }
      expect(value).toBeCloseTo(weighted(mixed), 12);
    }
    const doubled = new Function('xs', 'let s = 0; for (const v of xs) s += (v ?? 1) * 2; return s;') as (xs: (number | undefined)[]) => number;
    const hv = valueAndGrad(doubled);
    expect(hv([1, 2, 3])[0]).toBe(12);
    let held: number | undefined;
    try {
      [held] = hv([1, undefined, 3]);
    } catch {
      held = 10;
    }
    expect(held).toBe(10);
  });
});
