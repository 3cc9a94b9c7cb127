// Closures through the runtime API (src/frontend/closures.ts, src/api/runtime.ts): a factory's closure
// differentiated with what it closes over passed in `scope`, a clear error naming a free variable left
// out, and plain JavaScript functions with local functions reading and writing their variables.
import { describe, expect, it } from 'vitest';
import { grad, jacobian } from '../src/index.js';

/** a factory: the loss closes over the data it was made with */
const makeLoss = (data: number[]) => (w: number[]) => {
  let s = 0;
  for (let i = 0; i < data.length; i++) {
    const r = w[0] * data[i] + w[1] - 2 * data[i];
    s += r * r;
  }
  return s;
};

describe('runtime API: closures', () => {
  it('a factory closure with its free variable in scope: the analytic gradient', () => {
    const data = [1, 2, 3];
    const w = [0.5, 0.1];
    // d/dw0 = Σ 2 r x, d/dw1 = Σ 2 r with r = w0 x + w1 − 2x
    const r = data.map((x) => w[0] * x + w[1] - 2 * x);
    const expected = [r.reduce((s, ri, i) => s + 2 * ri * data[i], 0), r.reduce((s, ri) => s + 2 * ri, 0)];
    const g = grad(makeLoss(data), { scope: { data } })(w) as number[];
    expect(g[0]).toBeCloseTo(expected[0], 12);
    expect(g[1]).toBeCloseTo(expected[1], 12);
  });

  it('a free variable left out of scope: one error naming it and saying to pass it in scope', () => {
    let err: unknown;
    try {
      grad(makeLoss([1, 2]))([0.5, 0.1]);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(Error);
    const text = (err as Error).message;
    expect(text.match(/'data' is a free variable/g)).toHaveLength(1); // read three times, reported once
    expect(text).toMatch(/pass it in scope: `grad\(f, \{ scope: \{ data \} \}\)`/);
  });

  it('plain JavaScript with local functions reading and writing the enclosing variables', () => {
    function energy(x: number[], k: number) {
      const sq = (v: number) => v * v;
      let total = 0;
      const add = (v: number) => {
        total += k * sq(v);
      };
      for (const v of x) add(v);
      add(total); // sees the current total
      return total;
    }
    const x = [0.3, -0.7], k = 0.8;
    const t0 = k * (x[0] ** 2 + x[1] ** 2);
    // total = t0 + k t0², so d/dx_i = (1 + 2 k t0) · 2 k x_i
    const g = grad(energy)(x, k) as number[];
    expect(g[0]).toBeCloseTo((1 + 2 * k * t0) * 2 * k * x[0], 12);
    expect(g[1]).toBeCloseTo((1 + 2 * k * t0) * 2 * k * x[1], 12);
  });

  it('a nested function declaration, hoisted, in a Jacobian', () => {
    function rot(p: number[], a: number) {
      return [turn(p[0], p[1]), turn(p[1], -p[0])];
      function turn(u: number, v: number) {
        return Math.cos(a) * u - Math.sin(a) * v;
      }
    }
    const J = jacobian(rot)([1, 2], 0.3) as number[][];
    const c = Math.cos(0.3), s = Math.sin(0.3);
    expect(J[0][0]).toBeCloseTo(c, 12);
    expect(J[0][1]).toBeCloseTo(-s, 12);
    expect(J[1][0]).toBeCloseTo(s, 12);
    expect(J[1][1]).toBeCloseTo(c, 12);
  });
});

// Helpers that take a function, as plain JavaScript writes them (no types: `any` here is stripped from
// the text the runtime API compiles). The function's type is learnt from the helper's calls of it.
function rk4(f: any, y: any, h: any) {
  const k1 = f(y);
  const k2 = f(y.map((v: any, i: any) => v + 0.5 * h * k1[i]));
  const k3 = f(y.map((v: any, i: any) => v + 0.5 * h * k2[i]));
  const k4 = f(y.map((v: any, i: any) => v + h * k3[i]));
  return y.map((v: any, i: any) => v + (h / 6) * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]));
}
function simpson(f: any, a: any, b: any, n: any) {
  const h = (b - a) / n;
  let s = f(a) + f(b);
  for (let i = 1; i < n; i++) s += (i % 2 ? 4 : 2) * f(a + i * h);
  return (s * h) / 3;
}
function gauss(t: any, p: any) {
  return Math.exp(-p * t * t);
}
function trapezoid(f: any, p: any, a: any, b: any, n: any) {
  const h = (b - a) / n;
  let s = 0.5 * (f(a, p) + f(b, p));
  for (let i = 1; i < n; i++) s += f(a + i * h, p);
  return s * h;
}

/** central differences of a scalar function of an array */
function divided(f: (x: number[]) => number, x: number[]): number[] {
  return x.map((_, i) => {
    const e = 1e-6, a = x.slice(), b = x.slice();
    a[i] += e;
    b[i] -= e;
    return (f(a) - f(b)) / (2 * e);
  });
}

describe('runtime API: untyped helpers that take a function', () => {
  const cases: [string, (p: number[]) => number, Record<string, unknown>, number[]][] = [
    [
      'an arrow returning an array, passed to an RK4 step in a loop',
      (p) => {
        let y = [1, 0];
        for (let s = 0; s < 5; s++) y = rk4((z: number[]) => [z[1], -p[0] * z[0] - p[1] * z[1]], y, 0.1);
        return y[0];
      },
      { rk4 },
      [2, 0.3],
    ],
    [
      'a local arrow passed by name to a quadrature',
      (p) => {
        const g = (t: number) => Math.exp(-p[0] * t * t);
        return simpson(g, 0, 2, 8);
      },
      { simpson },
      [0.7],
    ],
    ['a helper passed by name, typed from where the other helper calls it', (q) => trapezoid(gauss, q[0], 0, 1, 6), { trapezoid, gauss }, [0.7]],
  ];
  for (const [name, f, scope, x] of cases)
    it(name, () => {
      const g = grad(f, { scope })(x) as number[];
      const d = divided(f, x);
      g.forEach((gi, i) => expect(Math.abs(gi - d[i])).toBeLessThan(1e-7 * (1 + Math.abs(d[i]))));
    });
});

describe('a factory called inside the differentiated function', () => {
  it('is followed: the closure it returns is written out at its calls, its state a variable of the caller', () => {
    const makeCounter = new Function('return function makeCounter(rate) { let x = 0; return (dt) => { x += rate * dt; return x; }; };')();
    const f = new Function('return function f(rate) { const step = makeCounter(rate); step(0.1); const v = step(0.2); return v * rate; };')();
    // f(rate) = 0.3·rate², f'(2) = 1.2; a second counter keeps its own state
    expect(grad(f, { scope: { makeCounter } })(2)).toBeCloseTo(1.2, 12);
    const two = new Function('return function two(a, b) { const p = makeCounter(a), q = makeCounter(b); p(1); q(2); const u = p(1); const w = q(1); return u * w; };')();
    // u = 2a, q's state 2b + b = 3b: two = 6ab, ∂/∂a = 6b, ∂/∂b = 6a
    const g = grad(two, { scope: { makeCounter }, wrt: [0, 1] })(0.5, 0.25) as number[];
    expect(g[0]).toBeCloseTo(1.5, 12);
    expect(g[1]).toBeCloseTo(3, 12);
  });

  it('is refused at the call, once, where the factory returns from two places', () => {
    const mk = new Function('return function mk(rate) { if (rate > 5) return (dt) => dt; return (dt) => rate * dt; };')();
    const f = new Function('return function f(rate) { const step = mk(rate); return step(0.2); };')();
    let message = '';
    try {
      grad(f, { scope: { mk } })(2);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/'step' holds the function 'mk' returns, which tsad cannot follow here: it returns before its last statement/);
    expect(message.match(/error:/g)).toHaveLength(1);
  });
});

// trial 21: after one call with the right scope, other data of the same shapes reused the compiled copy
// unchecked, and the gradient was of the function the scope described, not of the closure
describe('scope data that is not what the closure holds', () => {
  function makeLoss(X: number[], y: number[]) {
    return (w: number[]) => {
      let s = 0;
      for (let i = 0; i < X.length; i++) {
        const r = w[0] * X[i] + w[1] - y[i];
        s += r * r;
      }
      return s;
    };
  }
  it('is compared again with the closure when it changes, and the error names the scope entries', () => {
    const X1 = [1, 2, 3], y1 = [1, 2, 3];
    const loss = makeLoss(X1, y1);
    expect(grad(loss, { scope: { X: X1, y: y1 } })([0.5, 0.1])).toHaveLength(2);
    expect(() => grad(loss, { scope: { X: [5, 5, 5], y: y1 } })([0.5, 0.1])).toThrow(/values passed in scope \(X, y\)/);
    // the right data again: no error
    expect(grad(loss, { scope: { X: X1, y: y1 } })([0.5, 0.1])).toHaveLength(2);
  });
});
