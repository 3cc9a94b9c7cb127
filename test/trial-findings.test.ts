// Bugs two new-user trials found (2026-11-27), each with its smallest reproduction: wrong derivatives
// tsad returned for code it accepted, now right or refused where they are written, and refusals that
// were wrong. Programs are checked by checkCompiled (divided differences, dot-product test) at the
// given point; refusals by file:line:col and message.
import { describe, expect, it } from 'vitest';
import { checkCompiled } from '../src/api/check.js';
import { compile } from '../src/api/compile.js';
import { compileHvp } from '../src/api/hessian.js';
import { loadGenerated } from '../src/api/load.js';
import { grad, hessian, hessianDiagonal, jacfwd, jacobian, jacrev, sparseHessian, valueAndGrad } from '../src/index.js';

function checks(src: string, head: string, args: unknown[], wrt?: string[]): void {
  const r = compile(src, { head, js: true, runtimeImport: null, ...(wrt ? { wrt } : {}) });
  expect(r.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message)).toEqual([]);
  const rep = checkCompiled(r, r.code, head, args);
  expect(rep.messages).toEqual([]);
  expect(rep.ok).toBe(true);
}

function refused(src: string, head: string, line: number, col: number, message: RegExp): void {
  const r = compile(src, { head });
  const errors = r.diagnostics.filter((d) => d.severity === 'error');
  expect(errors.map((d) => `${d.line}:${d.col} ${d.message}`)).toEqual([expect.stringMatching(new RegExp(`^${line}:${col} .*${message.source}`))]);
}

describe('derivatives that were silently wrong', () => {
  it('a copy returned where it is made (`return w.slice()`), also of a literal or chosen by a test', () => {
    checks(`function snap(w: number[]): number[] { return w.slice(); }
function lit(w: number[]): number[] { return [w[0], w[1]].slice(); }
function pick(w: number[], v: number[], c: boolean): number[] { return c ? w.slice() : v.slice(); }
export function f(x: number[], y: number[]): number {
  const s = snap(x), t = lit(y), u = pick(x, y, x[0] > 0);
  return s[0] * s[1] + t[0] * t[1] + u[0] * u[1];
}`, 'f', [[1.5, 0.5], [2, 3]]);
  });

  it('copies and views of arrays made where they stand', () => {
    checks(`export function f(x: number[]): number {
  const a = [x[0]].slice();
  const b = x.slice().slice();
  const c = Float64Array.from(x).subarray(1, 2);
  const d = new Float64Array(x).slice(0, 2);
  return a[0] * b[1] + c[0] * c[0] + d[0] * d[1];
}`, 'f', [[1.5, 0.5, 0.7]]);
    // (a typed copy of a literal still converts its values)
    const r = compile(`export function f(x: number): number { const b = Uint8Array.from([x * 100 - 300]); return b[0] + x; }`, { head: 'f', js: true, runtimeImport: null });
    expect(r.code).toMatch(/Uint8Array\.from/);
  });

  it('an array or object chosen by a test and used where it stands', () => {
    checks(`interface P { x: number; y: number }
export function f(x: number[], p: P, q: P): number {
  const a = (x[0] > 0 ? x : [1, 2])[1];
  const b = (p.x > 0 ? p : q).y;
  const c = x[1] > 0 ? (p.y > 0 ? x : [0.5, 0.25])[0] : 1;
  return a * b + c * x[0];
}`, 'f', [[1.5, 0.5], { x: 1, y: 2 }, { x: 3, y: 4 }]);
    checks(`class P { x: number; v: number; constructor(x: number, v: number) { this.x = x; this.v = v; }
  get e(): number { return this.v * this.v; }
  energy(): number { return this.x * this.v; } }
export function best(a: number[], b: number[]): number {
  const pa = new P(a[0], a[1]), pb = new P(b[0], b[1]);
  return (pa.e < pb.e ? pa : pb).energy() + (pa.x > pb.x ? pa : pb).e + (pa.x > 0 ? pa : pb).x;
}`, 'best', [[1.5, 0.5], [2, 3]]);
    refused(`export function f(x: number[], t: Float64Array): number {\n  return (x[0] > 0 ? x : t)[0] * x[1];\n}\n`, 'f', 2, 11, /typed array and a plain array/);
  });

  it("a helper's optional array or object parameter given numbers that depend on the independents: refused at the call", () => {
    refused(`function h(y: number, x?: number[]): number { return x ? x[0] * y : y; }\nexport function f(y: number, x: number[]): number { return h(y) + h(y, x); }\n`, 'f', 2, 67, /'h' takes 'x' as an array or object that may be absent/);
    refused(`interface O { k: number }\nfunction h(y: number, o?: O): number { return o ? o.k * y : y; }\nexport function f(y: number, o: O): number { return h(y, o); }\n`, 'f', 3, 53, /'h' takes 'o'/);
    // a passive array there is fine
    checks(`function h(y: number, x?: number[]): number { return x ? x[0] * y : y; }\nexport function f(y: number): number { return h(y) + h(y, [2]); }\n`, 'f', [1.5]);
  });

  it('objects linked inside a callee and written afterwards by the caller: refused at the call', () => {
    const cases: [string, number, number, RegExp][] = [
      // the callee keeps what it was given: in a field, in the result, through a factory or a subclass
      [`class L { w: number[]; constructor(w: number[]) { this.w = w; } }\nfunction make(w: number[]): L { return new L(w); }\nexport function f(w: number[], k: number): number { const a = make(w); a.w[0] *= k; return w[0]; }\n`, 3, 63, /'make' keeps an array or object it was given/],
      [`interface O { data: number[] }\nfunction attach(o: O, v: number[]): void { o.data = v; }\nexport function f(x: number): number { const o: O = { data: [0] }; const v = [x]; attach(o, v); v[0] = v[0] * 3; return o.data[0]; }\n`, 3, 83, /'attach' keeps/],
      [`class Pt { x: number; constructor(x: number) { this.x = x; } }\nclass World { ps: Pt[] = []; add(p: Pt): void { this.ps.push(p); } }\nexport function f(x: number): number { const p = new Pt(1); const w = new World(); w.add(p); p.x = x; return w.ps[0].x * x; }\n`, 3, 84, /the method 'add' keeps/],
      // … and writes into them two calls down: a method of the holder calling a method of the held object
      [`class Body { x: number; f = 0; constructor(x: number) { this.x = x; } push(f: number): void { this.f += f; } }\nclass Link { constructor(public a: Body, public b: Body) {} pull(k: number): void { const d = this.b.x - this.a.x; this.a.push(k * d); this.b.push(-k * d); } }\nexport function f(x: number[]): number { const bs = [new Body(x[0]), new Body(x[1])]; const l = new Link(bs[0], bs[1]); l.pull(x[2]); return bs[0].f * bs[1].f + bs[0].x; }\n`, 3, 97, /the instance `new Link\(…\)` keeps an array or object it was given/],
      // the callee puts one object in two places
      [`function mk(): { a: number[]; b: number[] } { const arr = [0]; return { a: arr, b: arr }; }\nexport function f(x: number): number { const buf = mk(); buf.a[0] = x; return buf.b[0] * x; }\n`, 2, 52, /'mk' puts one array or object in two places/],
      [`function init(o: { p: number[]; q: number[] }): void { const a = [0, 0]; o.p = a; o.q = a; }\nexport function f(x: number[]): number { const o = { p: [1, 1], q: [2, 2] }; init(o); o.p[0] = x[0] * x[1]; return o.q[0] * x[0]; }\n`, 2, 78, /'init' puts one/],
      [`function maybeLink(o: { a: number[]; b: number[] }, c: number): void { if (c > 0) o.b = o.a; }\nexport function f(x: number[]): number { const o = { a: [0], b: [1] }; maybeLink(o, x[1]); o.a[0] = x[0] * x[0]; return o.b[0] * x[1]; }\n`, 2, 72, /'maybeLink' puts one/],
    ];
    for (const [src, line, col, message] of cases) refused(src, 'f', line, col, message);
  });

  it('a method, getter or helper returning what an instance keeps, written through by the caller: refused at the instance (the adjoint was wrong)', () => {
    refused(`class Box { w: number[]; constructor(w: number[]) { this.w = w; } get(): number[] { return this.w; } }\nexport function f(w: number[]): number { const b = new Box(w); const a = b.get(); a[0] = a[0] * a[0]; return b.w[0] + w[0]; }\n`, 'f', 2, 52, /the instance `new Box\(…\)` keeps an array or object it was given/);
    refused(`class Box { w: number[]; constructor(w: number[]) { this.w = w; } get weights(): number[] { return this.w; } self(): Box { return this; } }\nexport function f(w: number[]): number { const b = new Box(w); const c = b.self(); c.w[0] = c.w[0] * c.w[0]; const a = b.weights; a[1] *= 2; return b.w[0] + w[0] + w[1]; }\n`, 'f', 2, 52, /the instance `new Box\(…\)` keeps/);
    refused(`function mk(w: number[]): { w: number[] } { return { w }; }\nfunction wts(o: { w: number[] }): number[] { return o.w; }\nexport function f(w: number[]): number { const b = mk(w); const a = wts(b); a[0] = a[0] * a[0]; return b.w[0] + w[0]; }\n`, 'f', 3, 52, /'mk' returns an array or object that holds one it was given/);
  });

  it('a result that is the argument it returns (gl-matrix `out`), passed again beside it: refused', () => {
    refused(`function mul2(out: number[], a: number[], b: number[]): number[] {
  out[0] = a[0] * b[0] + a[1] * b[1];
  out[1] = a[1] * b[0] - a[0] * b[1];
  return out;
}
export function chain(m: number[], n: number[]): number {
  const out = [0, 0];
  const r = mul2(out, m, n);
  mul2(out, r, n);
  return out[0] + 2 * out[1];
}
`, 'chain', 9, 3, /'mul2' is given one array as both 'out', which it writes, and 'a'/);
  });

  it('a value computed before a test that then leaves it unused: its zero adjoint stays 0 through an infinite partial (was NaN in reverse mode)', () => {
    const cases: [(...a: number[]) => number, number[]][] = [
      [(x: number) => { const n = Math.sqrt(x * x); if (n === 0) return 0; return x / n; }, [0]],
      [(x: number) => { const inv = 1 / x; if (x === 0) return 0; return inv; }, [0]],
      [(x: number) => { const l = Math.log(x); if (x <= 0) return 0; return l; }, [0]],
      [(x: number) => { const n = Math.pow(x, 0.5); return x === 0 ? 0 : n; }, [0]],
      [(x: number, y: number) => { const n = Math.sqrt(x * x + y * y); return n > 0 ? x / n : 0; }, [0, 0]],
    ];
    for (const [f, args] of cases) expect(grad(f, { wrt: args.map((_, i) => i), check: false })(...args)).toEqual(args.map(() => 0));
    // the guard keeps a finite partial's product as it is: a Hessian at a point where an adjoint is 0
    // (an input that is 0) keeps p·ȳ̇ (the guard's first form gave 1 instead of 0.25 here)
    expect(hessian((v: number[]) => Math.sqrt(v[0]) * v[1] + Math.log(v[0]) * v[1] * v[1], { check: false })([4, 0])).toEqual([[0, 0.25], [0.25, 2 * Math.log(4)]]);
    // where the value is used, the infinite derivative stays (the one-sided limit, as JAX and PyTorch give)
    expect(grad((x: number) => Math.sqrt(x), { check: false })(0)).toBe(Infinity);
    checks(`export function cosine(a: number[], b: number[]): number {
  let ab = 0, aa = 0, bb = 0;
  for (let i = 0; i < a.length; i++) { ab += a[i] * b[i]; aa += a[i] * a[i]; bb += b[i] * b[i]; }
  const n = Math.sqrt(aa) * Math.sqrt(bb);
  if (n === 0) return 0;
  return ab / n;
}`, 'cosine', [[0, 0], [1, 2]]);
  });

  it('a field named `length` (a pendulum\'s, a segment\'s) is a field, not an array\'s length: assigned, and in the Hessian\'s gradient code', () => {
    checks(`interface Seg { length: number; angle: number }
export function f(x: number[]): number {
  const s: Seg = { length: x[0], angle: x[1] };
  s.length = s.length * 2 + x[1];
  return s.length * Math.cos(s.angle);
}`, 'f', [[1.5, 0.3]]);
    const { Pend, swing } = new Function(`class Pend { constructor(t, w, length) { this.t = t; this.w = w; this.length = length; }
      accel(t) { return -(9.81 / this.length) * Math.sin(t); }
      step(dt) { const a = this.accel(this.t); this.t += dt * this.w; this.w += dt * a; } }
      function swing(x) { const p = new Pend(x[0], x[1], x[2]); for (let i = 0; i < 3; i++) p.step(0.1); return p.t; }
      return { Pend, swing };`)() as { Pend: unknown; swing: (x: number[]) => number };
    const H = hessian(swing, { scope: { Pend } })([0.3, 0.1, 1.2]) as number[][];
    expect(H[0][2]).toBeCloseTo(H[2][0], 12);
    expect(Math.abs(H[0][2])).toBeGreaterThan(0);
  });

  it('a branch reading a row that exists only where its test says so (`i === 0 ? acc : … pts[i - 1][0]`): the read is not hoisted out of the branch (was a TypeError in every mode)', () => {
    checks(`export function f(pts: number[][]): number {
  let acc = 0;
  for (let i = 0; i < pts.length; i++) acc = i === 0 ? acc : acc + pts[i][0] * pts[i - 1][0];
  return pts.reduce((s, p, i) => (i === 0 ? s : s + Math.hypot(p[0] - pts[i - 1][0], p[1] - pts[i - 1][1])), acc);
}`, 'f', [[[1, 2], [0.5, 0.3], [2, 1]]]);
  });

  it('the runtime self-check does not call a huge, right derivative wrong (a chaotic map: differences at its steps disagree with each other)', () => {
    const lyapunov = (r: number, x0: number, n: number) => {
      let x = x0, sum = 0;
      for (let i = 0; i < 20; i++) x = r * x * (1 - x);
      for (let i = 0; i < n; i++) {
        x = r * x * (1 - x);
        sum += Math.log(Math.abs(r * (1 - 2 * x)));
      }
      return sum / n;
    };
    const g = grad(lyapunov, { wrt: [0, 1] })(3.7, 0.31, 200) as number[];
    expect(Math.abs(g[0])).toBeGreaterThan(1e20);
  });

  it('an element popped off an array made where it stands (`xs.slice().pop()`) keeps its derivative (was 0: the copy was made three times, the popped one unnamed)', () => {
    checks(`export function guarded(xs: number[]): number {
  const v = xs.slice().pop();
  const w = [...xs].pop()! * xs[0];
  return v === undefined ? 0 : v * 3 + w;
}`, 'guarded', [[1, 2, 3]]);
    // the runtime API: plain JavaScript has no \`!\`: an element taken off and not tested for absence is its number
    const guarded = new Function('xs', 'const v = xs.slice().pop(); return v === undefined ? 0 : v * 3;') as (xs: number[]) => number;
    expect(grad(guarded)([1, 2, 3])).toEqual([0, 0, 3]);
    const bfs = new Function('xs', 'const q = [...xs]; let s = 0, n = 0; while (q.length) { const v = q.shift(); s += v * (++n); } return s + xs.at(-1) * q.length;') as (xs: number[]) => number;
    expect(grad(bfs)([1, 2, 3])).toEqual([1, 2, 3]);
  });

  it('Jacobian and Hessian columns follow the order the caller wrote the fields in', () => {
    const g = (p: { zeta: number; alpha: number; mid: number }) => [p.zeta * 1, p.alpha * 2, p.mid * 3];
    expect(jacobian(g)({ zeta: 1, alpha: 1, mid: 1 })).toEqual([[1, 0, 0], [0, 2, 0], [0, 0, 3]]);
    const f = (p: { slope: number; intercept: number }) => 3 * p.slope * p.slope + p.intercept;
    expect(hessian(f)({ slope: 2, intercept: 1 })).toEqual([[6, 0], [0, 0]]);
    expect(hessian(f)({ intercept: 1, slope: 2 })).toEqual([[0, 0], [0, 6]]);
  });
});

describe('found by trial F (2026-11-27)', () => {
  it('the runtime API typing an options parameter from calls passing different fields (`{}`, `{ scale: a }`, `{ scale: undefined }`)', () => {
    // the first call's `{}` typed every call: the other calls' fields were dropped, value and gradient wrong
    const D = { scale: 1 };
    const m = (r: number, opts: { scale?: number }) => {
      const o = { ...D, ...opts };
      return r * (o.scale ?? 1);
    };
    const f = (r: number, a: number) => m(r, {}) + m(r, { scale: a }) + m(r, { scale: undefined });
    const [value, g] = valueAndGrad(f, { wrt: ['r', 'a'], scope: { m, D } })(0.25, 0.4) as [number, number[]];
    expect(value).toBeCloseTo(0.6, 14);
    expect(g[0]).toBeCloseTo(2.4, 12);
    expect(g[1]).toBeCloseTo(0.25, 12);
  });

  it('a default computed from earlier parameters (`c2 = c0 * 2 + x`), and arguments passed as undefined or maybe undefined', () => {
    // was refused ("must be a literal"); an undefined argument now takes the default, as JavaScript gives it
    checks(`export function poly(x: number, c0: number = 1, c1?: number, c2 = c0 * 2 + x): number {
  return c0 + (c1 ?? 3) * x + c2 * x * x;
}
export function scaled(x: number, k: number = 2): number { return k * x * x; }
export function model(a: number, b: number, o: { k?: number }): number {
  const u: number | undefined = a > 0 ? undefined : b;
  return poly(a) + poly(a, b) + poly(b, a, a * b) + poly(a, b, undefined, a * a) + poly(b, undefined, a) + poly(a, b, b, undefined) + scaled(a, o.k) + scaled(b, u);
}`, 'model', [0.7, 1.9, {}]);
    const r = compile(`export function poly(x: number, c0: number = 1, c2 = c0 * 2 + x): number { return c0 + c2 * x; }
export function model(a: number, b: number, o: { k?: number }): number { const u: number | undefined = a > 0 ? undefined : b; return poly(a) + poly(b, u, undefined) + poly(a, b, o.k); }`, { head: 'model', js: true, runtimeImport: null });
    const m = loadGenerated(r.code, r.runtimeNames) as Record<string, (...a: unknown[]) => number>;
    function poly(x: number, c0: number = 1, c2 = c0 * 2 + x): number { return c0 + c2 * x; }
    const model = (a: number, b: number, o: { k?: number }) => { const u: number | undefined = a > 0 ? undefined : b; return poly(a) + poly(b, u, undefined) + poly(a, b, o.k); };
    for (const [a, b] of [[0.7, 1.9], [-0.7, 1.9]]) expect(m.model(a, b, {})).toBe(model(a, b, {}));
  });

  it('objects and rows sorted by a numeric key (`items.sort((a, b) => b.v - a.v)`, `rows.sort((a, b) => a[1] - b[1])`)', () => {
    // was refused ("`sort` is supported on arrays of numbers"); the references move, with their shadows
    checks(`export interface Item { v: number; w: number }
export function topk(vals: number[], wts: number[], xs: number[][]): number {
  const items: Item[] = vals.map((v, i) => ({ v: v * wts[i], w: wts[i] }));
  items.sort((a, b) => b.v - a.v);
  const rows = xs.map((r) => [r[0] * wts[0], r[1] + vals[1]]);
  rows.sort((a, b) => { return a[1] - b[1]; });
  let s = 0;
  for (let i = 0; i < 3; i++) s += items[i].v / items[i].w + items[i].w;
  return s + rows[0][0] * rows[rows.length - 1][1];
}`, 'topk', [[3.2, 1.1, 4.7, 0.5, 2.9], [1.0, 2.0, 0.5, 3.0, 1.5], [[1, 2], [3, -1], [0.5, 0.7]]]);
    refused(`export function f(xs: { v: number }[]): number { xs.sort((a, b) => a.v * 2 - b.v); return xs[0].v; }`, 'f', 1, 58, /`sort` is supported on arrays of numbers, and on arrays of objects or rows by a numeric key/);
  });

  it('a method a subclass overrides, called on a `const` made by `new` (its class known): no dispatch', () => {
    // was refused as polymorphic, with a hint (annotate the type) that did not help
    checks(`export class Shape {
  constructor(public scale: number) {}
  area(): number { return this.scale; }
}
export class Circle extends Shape {
  constructor(scale: number, public r: number) { super(scale); }
  area(): number { return super.area() * Math.PI * this.r * this.r; }
}
export class Ring extends Circle {
  constructor(scale: number, r: number, public inner: number) { super(scale, r); }
  area(): number { return super.area() - this.scale * Math.PI * this.inner ** 2; }
}
export function run(p: number[]): number {
  const c: Circle = new Circle(p[0], p[1]);
  const r = new Ring(p[0], p[3], p[1] * p[2]);
  return c.area() + r.area() + Math.sin(r.inner);
}`, 'run', [[1.1, 0.4, -0.3, 2.0]]);
  });

  it('options spread over module-level defaults whose declared type makes every field optional (`DEFAULTS: Opts = { … }`)', () => {
    // was refused ("the spread would copy the optional field 'loss', which nothing before it gives")
    checks(`export interface Opts { loss?: 'l2' | 'cauchy'; log?: boolean; scale?: number }
export const DEFAULTS: Opts = { loss: 'l2', log: false, scale: 1 };
export function residualLoss(r: number, opts: Opts): number {
  const o = { ...DEFAULTS, ...opts };
  const s = o.scale ?? 1;
  const base = o.loss === 'cauchy' ? Math.log1p((r / s) ** 2) : (r / s) ** 2;
  return (o.log ?? false) ? Math.log(1e-3 + base) : base;
}
export function fit(xs: number[], ys: number[], a: number, b: number): number {
  let tot = 0;
  for (let i = 0; i < xs.length; i++) {
    const r = ys[i] - (a + b * xs[i]);
    tot += residualLoss(r, {}) + residualLoss(r, { loss: 'cauchy', scale: a }) + residualLoss(r, { log: true });
  }
  return tot;
}`, 'fit', [[0.5, 1.5, 2.5], [1.1, 2.9, 5.2], 0.4, 0.9]);
  });

  it('the runtime self-check compares the compiled copy\'s value with the function\'s own before returning any derivative', () => {
    // a copy that computes another value (here: a scope binding changed after the first compile of a
    // helper reading it through a closure the copy does not share) is caught, not differentiated
    let k = 2;
    const helper = (x: number) => k * x * x;
    const f = (x: number) => helper(x) + x;
    const gf = grad(f, { scope: { helper, k: 2 } });
    expect(gf(1.5)).toBeCloseTo(7, 12);
    k = 3;
    const other = grad((x: number) => helper(x) + x, { scope: { helper, k: 2 } });
    expect(() => other(1.5)).toThrow(/the copy of '.*' tsad compiled computes 6\.?0* at x = 1\.5, where '.*' itself computes 8\.25/);
  });
});

describe('code that was refused for no reason', () => {
  it('a constructor computing a field from one it assigned just before', () => {
    checks(`class S { a: number; b: number; c: number;
  constructor(x: number) { this.a = x; this.c = this.a + 1; this.b = this.a * this.c; } }
export function f(x: number): number { const s = new S(x); return s.b + s.c; }`, 'f', [1.5]);
    // (a method called before a field has its value could read it: still refused)
    refused(`class T { a: number; b: number; constructor(x: number) { this.a = x; this.show(); this.b = 2; } show(): number { return this.b; } }\nexport function g(x: number): number { return new T(x).a; }\n`, 'g', 1, 70, /field 'b' of 'T' has no value yet/);
  });

  it('an optional string-literal flag (a field or a parameter)', () => {
    checks(`export interface O { units?: 'km' | 'mi' }
function conv(d: number, units?: 'km' | 'mi'): number { return units === 'mi' ? d * 0.621371 : d; }
export function f(x: number[], o: O): number {
  let s = 0;
  for (const v of x) s += conv(v * v, o.units);
  return o.units === undefined ? 2 * s : s;
}`, 'f', [[1, 2], { units: 'mi' }]);
  });

  // (refused until the fuzzer's bitwise forms: every compound assignment now lowers as its operator)
  it('a compound shift (`k >>= 1`) lowers as `k = k >> 1`', () => {
    checks(`export function f(x: number, n: number): number {\n  let r = 1, k = n;\n  while (k > 0) { r *= x; k >>= 1; }\n  return r;\n}\n`, 'f', [1.3, 3]);
  });

  it('callbacks with destructured parameters, and a local function reassigning only its own variables called from a chain', () => {
    checks(`export function f(pts: [number, number][], ps: { u: number; v: number }[], w: number[]): number {
  const d = pts.map(([x, y]) => Math.hypot(x, y));
  const e = ps.reduce((s, { u, v }, i) => s + u * v * (i + 1), 0);
  let t = 0;
  pts.forEach(([x, y], i) => { t += x * y + i; });
  const predict = (p: [number, number]): number => {
    let z = 0;
    for (let j = 0; j < w.length; j++) z += w[j] * p[j];
    return z;
  };
  return d.reduce((a, b) => a + b, 0) + e + t + pts.map((p) => predict(p)).reduce((a, b) => a + b, 0);
}`, 'f', [[[0.5, 1.5], [2, -1]], [{ u: 1, v: 2 }, { u: 0.5, v: -1 }], [0.25, 0.75]]);
  });

  it('the runtime API on plain JavaScript: destructured options with defaults the argument lacks, a helper passed by name to map', () => {
    const sqrtNewton = new Function('a', '{ tol = 1e-12, maxIter = 60 } = {}', 'let x = 1, it = 0, step; do { step = (x * x - a) / (2 * x); x -= step; it++; } while (Math.abs(step) > tol && it < maxIter); return x;') as (a: number, o?: { tol?: number; maxIter?: number }) => number;
    for (const o of [{ tol: 1e-13 }, {}, undefined, { tol: 1e-13, maxIter: 40 }]) expect(grad(sqrtNewton)(2, o)).toBeCloseTo(0.5 / Math.SQRT2, 12);
    const toLinear = new Function('c', 'return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);') as (c: number) => number;
    const total = new Function('rgb', 'return rgb.map(toLinear).reduce((a, b) => a + b, 0);') as (rgb: number[]) => number;
    const g = grad(total, { scope: { toLinear } })([0.8, 0.3, 0.02]) as number[];
    [1.6949539336290178, 0.49513660312161417, 1 / 12.92].forEach((want, i) => expect(g[i]).toBeCloseTo(want, 10));
  });

  it('--check on code storing into a Float32Array: divided differences with a step and tolerance for float32 rounding', () => {
    checks(`export function f(xs: number[], s: number): number {
  const buf = new Float32Array(xs.length);
  for (let i = 0; i < xs.length; i++) buf[i] = xs[i] * s;
  let acc = 0;
  for (let j = 0; j < buf.length; j++) acc += buf[j] * buf[j] * (j + 1);
  return acc;
}`, 'f', [[0.3, -1.2, 2.5], 0.7]);
  });

  it('`new Array(n)` filled by a loop whose store is not its first statement, a declaration in between', () => {
    checks(`export function softmaxRows(Q: number[][], K: number[][]): number {
  let total = 0;
  for (let i = 0; i < Q.length; i++) {
    const n = K.length;
    const scores: number[] = new Array(n);
    let mx = -Infinity;
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let k = 0; k < Q[i].length; k++) s += Q[i][k] * K[j][k];
      scores[j] = s;
      if (scores[j] > mx) mx = scores[j];
    }
    let z = 0;
    for (let j = 0; j < n; j++) z += Math.exp(scores[j] - mx);
    total += mx + Math.log(z);
  }
  return total;
}`, 'softmaxRows', [[[0.5, 1], [0.2, -0.3]], [[1, 0.5], [-0.5, 0.25], [0.3, 0.3]]]);
    // a read of an element the loop wrote before (`a[i - 1]`, a running sum) reads no hole: accepted
    checks(`export function f(x: number[]): number {\n  const a: number[] = new Array(x.length);\n  for (let i = 0; i < x.length; i++) {\n    a[i] = x[i];\n    if (i > 0) a[i] += a[i - 1];\n  }\n  return a[2] * a[1];\n}\n`, 'f', [[0.5, 1.5, -2]]);
    // a read of an element ahead of the store may read a hole: still refused
    refused(`export function f(x: number[]): number {\n  const a: number[] = new Array(x.length);\n  for (let i = 0; i < x.length; i++) {\n    a[i] = x[i];\n    if (i > 0) a[i] += a[i + 1];\n  }\n  return a[0];\n}\n`, 'f', 2, 23, /reads 'a' at another index than `i`/);
  });

  it('a declaration chosen by a test whose branch calls an array method (`c ? xs.reduce(…) : 0`, `weights ?? xs.map(…)`): an `if`', () => {
    checks(`export function f(x: number[], center: boolean, weights?: number[]): number {
  const n = x.length;
  const mean = center ? x.reduce((s, v) => s + v, 0) / n : 0;
  const w = weights ?? x.map(() => 1);
  const sw = w.reduce((a, b) => a + b, 0);
  let s = 0;
  for (let i = 0; i < n; i++) s += w[i] * (x[i] - mean) ** 2;
  return s / sw;
}`, 'f', [[1, 2.5, 0.5], true], ['x']);
    checks(`export function f(x: number[], center: boolean, weights?: number[]): number {
  const mean = center ? x.reduce((s, v) => s + v, 0) / x.length : 0;
  const w = weights ?? x.map(() => 1);
  return w.reduce((a, b, i) => a + b * (x[i] - mean) ** 2, 0);
}`, 'f', [[1, 2.5, 0.5], false, [0.5, 1, 2]], ['x']);
  });

  it('`Array.from` with a block callback ending in its return, and nested (the rows of a matrix)', () => {
    checks(`export function f(xs: number[], s: number): number {
  const n = xs.length;
  const K = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => s * Math.exp(-((xs[i] - xs[j]) ** 2))));
  const t = Array.from({ length: 3 }, (_, k) => {
    const h = xs[k % n] * s;
    return Array.from({ length: 2 }, (_, c) => h * (c + 1)).reduce((a, b) => a + b, 0);
  });
  return K.flat().reduce((a, b) => a + b, 0) + t[0] * t[2];
}`, 'f', [[0.5, 1.2, -0.3], 0.8]);
  });

  it('a factory returning a closure, called in the head: followed (was refused at the factory)', () => {
    checks(`function makeLoss(data: number[]): (w: number) => number {\n  return (w: number) => data.reduce((s, d) => s + (w - d) ** 2, 0);\n}\nexport function f(w: number, data: number[]): number {\n  const loss = makeLoss(data);\n  return loss(w);\n}\n`, 'f', [0.5, [1, 2, 3]]);
  });

  it('a head returning an array that may be null or undefined: one error saying so, with what to write', () => {
    refused(`export function solve2(A: number[][], b: number[]): number[] | null {
  const det = A[0][0] * A[1][1] - A[0][1] * A[1][0];
  if (Math.abs(det) < 1e-14) return null;
  return [(b[0] * A[1][1] - A[0][1] * b[1]) / det, (A[0][0] * b[1] - b[0] * A[1][0]) / det];
}
`, 'solve2', 1, 1, /'solve2' returns an array or object that may be null: tsad differentiates a result that may be null only when it is a number/);
  });

  it('a switch whose cases fall into the next, in reverse mode too (a default in the middle, a break inside a case, a return)', () => {
    for (const k of [0, 1, 2, 3, 7])
      checks(`export function f(x: number, k: number): number {
  let r = x;
  switch (k) {
    case 0:
      r = r * x;
    case 1:
      if (r > 5) break;
      r = r + Math.sin(x);
      break;
    default:
      r = -r;
    case 3:
      r *= 2;
      if (r < -100) return 0;
    case 4:
      r = r * r;
  }
  return r;
}`, 'f', [0.7, k], ['x']);
  });

  it('numbers sorted by a numeric comparator: a copy for a median, in place, descending, a typed array', () => {
    checks(`export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : 0.5 * (s[m - 1] + s[m]);
}
export function f(xs: number[], w: number, t: Float64Array): number {
  const ys = xs.map((x) => x * w);
  ys.sort((p, q) => p - q);
  xs[0] = 5 * w;
  const top = xs.slice().sort((a, b) => b - a);
  const c = Float64Array.from(t);
  c.sort();
  return ys[0] * 2 + ys[ys.length - 1] * xs[0] + top[1] + median(xs) * c[0];
}`, 'f', [[1.5, -2.5, 0.7, 3.1], 0.8, new Float64Array([0.3, -0.2, 0.9])]);
    refused(`export function f(xs: number[]): number {\n  return xs.slice().sort()[0];\n}\n`, 'f', 2, 10, /`sort\(\)` without a comparator sorts numbers as strings/);
  });

  it('`q.shift()`: the first element taken off a queue (plain numbers and rows)', () => {
    checks(`export function q(xs: number[]): number {
  const queue = xs.slice();
  let s = 0;
  while (queue.length > 0) {
    const v = queue.shift()!;
    s = s * 0.5 + v * v;
    if (v > 1 && queue.length < 3) queue.push(v * 0.25);
  }
  return s;
}
export function rows(m: number[][]): number {
  const work = m.map((r) => r.slice());
  let acc = 0;
  while (work.length) {
    const r = work.shift()!;
    r[0] *= 2;
    acc += r[0] * r[1];
  }
  return acc + m[0][0] + q(m[1]);
}`, 'rows', [[[1.5, 0.5], [2.5, 0.7, 0.2]]]);
  });

  it('`xs.at(-1)` and `xs.at(i) ?? d`: an element read at a relative index', () => {
    checks(`export function f(xs: number[], k: number): number {
  const last = xs.at(-1)!;
  const kth = xs.at(k - xs.length) ?? 1;
  const ys = xs.map((x) => x * x);
  return last * (xs.at(0) ?? 0) + kth * (ys.at(-2) ?? 0) + (xs.at(10) ?? 0.5);
}`, 'f', [[1.5, 2.5, 0.7, 3.1], 1]);
  });

  it('`let prev;` with no type (TypeScript types it by flow), as tsc accepts it', () => {
    checks(`export function cbrtNewton(a: number): number {
  let x = a > 1 ? a / 3 : 1;
  let prev;
  do {
    prev = x;
    x = x - (x * x * x - a) / (3 * x * x);
  } while (Math.abs(x - prev) > 1e-14 * Math.abs(x));
  return x;
}
export function gaps(xs: number[]): number {
  let prev;
  let s = 0;
  for (const x of xs) {
    if (prev !== undefined) s += (x - prev) ** 2;
    prev = x * 2;
  }
  return s + cbrtNewton(xs[0] + 2);
}`, 'gaps', [[1.5, 2.5, 0.7]]);
  });

  it('a destructured options parameter with a default object (`{ ddof = 0 }: Opts = {}`)', () => {
    checks(`export interface Opts { ddof?: number; scale?: number }
export function variance(xs: number[], { ddof = 0, scale = 1 }: Opts = {}): number {
  let m = 0;
  for (const x of xs) m += x / xs.length;
  let ss = 0;
  for (const x of xs) ss += (x - m) ** 2;
  return scale * ss / (xs.length - ddof);
}
export function both(xs: number[]): number { return variance(xs) + variance(xs, { ddof: 1 }); }`, 'both', [[2.5, 3.1, 4.7, 1.2]]);
  });

  it('a nullable number assigned again (`let best: number | null = null` updated in a loop): a number and a flag', () => {
    checks(`export function minOf(xs: number[]): number {
  let best: number | null = null;
  for (const x of xs) {
    const v = x * x - x;
    if (best === null || v < best) best = v;
  }
  return best ?? 0;
}`, 'minOf', [[1.5, 2.5, 0.2, 3.1]]);
    checks(`function lastAbove(xs: number[], t: number): number | undefined {
  let last: number | undefined;
  for (const x of xs) if (x > t) last = x * t; else if (x < -t) last = undefined;
  return last;
}
export function f(xs: number[], t: number): number {
  let prev: number | undefined;
  let s = 0;
  for (const x of xs) {
    if (typeof prev === 'number') s += (x - prev) ** 2;
    prev = x;
  }
  const l = lastAbove(xs, t);
  let m: number | null = xs.length ? xs[0] : null;
  for (const x of xs) if (m !== null && x < m) m = x * 1.5;
  return s + (l ?? 1) + (m || 2);
}`, 'f', [[1.5, -2.5, 0.7, 3.1], 1.1]);
    // the runtime API on plain JavaScript: `let best = null;`, `let prev;` compared with undefined
    const minOf = new Function('xs', 'let best = null; for (const x of xs) { const v = x * x - x; if (best === null || v < best) best = v; } return best === null ? 0 : best;') as (xs: number[]) => number;
    expect(grad(minOf)([1.5, 2.5, 0.2, 3.1])).toEqual([0, 0, expect.closeTo(-0.6, 12), 0]);
    const tv = new Function('xs', 'let prev; let s = 0; for (const x of xs) { if (prev !== undefined) s += Math.abs(x - prev); prev = x; } return s;') as (xs: number[]) => number;
    expect(grad(tv)([1.5, 2.5, 0.2, 3.1])).toEqual([-1, 2, -2, 1]);
    // null and undefined both: a strict test could not tell them apart once split
    refused(`export function f(xs: number[]): number {\n  let b: number | null | undefined = null;\n  for (const x of xs) b = x > 0 ? x : undefined;\n  return b ?? 0;\n}\n`, 'f', 2, 7, /nullable variable 'b' is assigned again and may hold both null and undefined/);
  });

  it('the runtime API on plain JavaScript with an options default (`options = {}`): fields the default lacks are optional', () => {
    const scaled = new Function('x', 'options = {}', 'const s = options.scale ?? 1; return s * x * x;') as (x: number, o?: { scale?: number }) => number;
    expect(grad(scaled)(2, { scale: 3 })).toBe(12);
    const powered = new Function('x', 'options = { n: 2 }', 'return (options.scale ?? 1) * x ** options.n;') as (x: number, o?: { scale?: number; n: number }) => number;
    expect(grad(powered)(2, { scale: 3, n: 3 })).toBeCloseTo(36, 12);
    // a field the argument lacks, read through a constant (`const w = options.weights; w ? w[i] : 1`)
    const std = new Function('xs', 'options = {}', `const w = options.weights; const ddof = options.ddof ?? 0;
      let sw = 0, m = 0;
      for (let i = 0; i < xs.length; i++) { const wi = w ? w[i] : 1; sw += wi; m += wi * xs[i]; }
      m /= sw;
      let v = 0;
      for (let i = 0; i < xs.length; i++) { const wi = w ? w[i] : 1; v += wi * (xs[i] - m) ** 2; }
      return Math.sqrt(v / (sw - ddof));`) as (xs: number[], o?: { weights?: number[]; ddof?: number }) => number;
    const g = grad(std)([1, 2, 4], { ddof: 1 }) as number[];
    [-0.4364357804719848, -0.1091089451179962, 0.545544725589981].forEach((want, i) => expect(g[i]).toBeCloseTo(want, 8));
  });

  it('`for (const [i, x] of xs.entries())`: a counted loop, no pair made per pass', () => {
    const src = `export function f(xs: number[], w: number[]): number {
  let s = 0;
  for (const [i, x] of xs.entries()) s += w[i] * x * x;
  for (const [, x] of w.entries()) s += x;
  for (let [j, v] of xs.entries()) { v = v * 2; s += j + v; }
  return s;
}`;
    checks(src, 'f', [[1.5, 0.5, 2], [0.3, 0.7, 1.1]]);
    expect(compile(src, { head: 'f', modes: ['tangent'] }).code).toMatch(/const i = xIndex;\n\s*const xd = xsd\[xIndex\];/);
  });

  it("a getter, method or helper returning a field of what it is given (`get weights() { return this.w; }`), stored into by the caller", () => {
    checks(`class Layer {
  w: number[];
  constructor(n: number) { this.w = new Array(n).fill(0.5); }
  get weights(): number[] { return this.w; }
  row(): number[] { return this.w; }
}
function firstOf(o: { a: number[]; b: number }): number[] { return o.a; }
export function f(x: number[]): number {
  const L = new Layer(x.length);
  const W = L.weights;
  for (let i = 0; i < x.length; i++) W[i] = x[i] * 2;
  const R = L.row();
  R[0] += x[0];
  const o = { a: [1, 2], b: 3 };
  const A = firstOf(o);
  A[1] = x[1] * x[0];
  let s = 0;
  for (let i = 0; i < x.length; i++) s += L.w[i] * x[i];
  return s + o.a[1];
}`, 'f', [[1.5, 0.5]]);
  });

  it('`rows.flat()`: a fresh array of the rows\' elements', () => {
    checks(`export function f(m: number[][], w: number[]): number {
  const xs = m.flat();
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += w[i % w.length] * xs[i] * xs[i];
  const ys = [[w[0], 0.5], m[1]].flat(1);
  return s + ys[2] * ys[0];
}`, 'f', [[[1, 2], [3, 0.5]], [0.3, 0.7]]);
    refused(`export function f(m: number[][][]): number {\n  return m.flat(2)[0];\n}\n`, 'f', 2, 10, /`flat\(\)` is supported with depth 1 only/);
    // second derivatives: the gradient code keeps the argument in the rows it flattens (tsad's own sweeps are not refused as linking calls)
    const cubes = (v: number[]) => {
      let s = 0;
      for (const x of [v, [1, 2]].flat()) s += x * x * x;
      return s;
    };
    expect(hessian(cubes)([0.5, -2])).toEqual([[3, 0], [0, -12]]);
  });

  it('an optional boolean field read where a test has narrowed it', () => {
    checks(`export interface Opts { flag?: boolean }
export function f(x: number, o: Opts): number {
  const b = o.flag === undefined ? true : o.flag;
  const c = typeof o.flag === 'boolean' ? o.flag : false;
  return (b ? x * x : x) + (c ? x : 0);
}`, 'f', [2, { flag: false }]);
  });

  it('helpers that swap rows of what they are given, or keep an argument the caller no longer uses', () => {
    checks(`function swapRows(A: number[][], i: number, j: number): void { [A[i], A[j]] = [A[j], A[i]]; }
export function f(x: number[][]): number { swapRows(x, 0, 1); x[0][0] *= 2; return x[0][0] * x[1][1] + x[0][1]; }`, 'f', [[[1, 2], [3, 4]]]);
    checks(`class P { x: number; constructor(x: number) { this.x = x; } }
class World { ps: P[] = []; add(p: P): void { this.ps.push(p); } }
export function f(xs: number[]): number {
  const w = new World();
  for (let i = 0; i < xs.length; i++) w.add(new P(xs[i]));
  for (const p of w.ps) p.x = p.x * p.x;
  return w.ps[0].x + w.ps[1].x;
}`, 'f', [[1.5, 0.5]]);
  });

  it('an optional field updated asserted present (`o.dt! += …`), and the gradient code that does so differentiated again', () => {
    const src = `export interface Opts { a: number; dt?: number }
export function f(o: Opts, x: number): number {
  const before = Math.sin(o.dt ?? 0) * x;
  if (o.dt !== undefined) o.dt! += x * o.a;
  if (o.dt !== undefined) o.dt! *= 1 + 0.5 * x;
  return o.a * (o.dt ?? 1) + before;
}`;
    checks(src, 'f', [{ a: 2, dt: 0.5 }, 3]);
    checks(src, 'f', [{ a: 2 }, 3]);
    // (the adjoint adds into \`ob.dt! += …\` where the field is present: forward over reverse takes it)
    const H = hessian((o: { a: number; dt?: number }, x: number) => { if (o.dt !== undefined) o.dt! += x * o.a; return o.a * (o.dt ?? 1) * x; }, { wrt: [1], check: false })({ a: 2, dt: 0.5 }, 3) as number[][];
    expect(H[0][0]).toBeCloseTo(8, 12); // a·(dt + x·a)·x: 2a²
    // a plain assignment could create the field: refused, with the update form in the hint only for updates
    refused(`export interface Opts { dt?: number }\nexport function f(o: Opts, x: number): number {\n  o.dt! = x;\n  return x * (o.dt ?? 1);\n}`, 'f', 3, 3, /the optional field 'dt' cannot be assigned/);
  });

  it('two elements of one array given to a helper writing both (a pair loop): distinct objects differentiated, one object twice stopped by a guard', () => {
    const src = `export interface Ball { x: number; v: number }
function push(a: Ball, b: Ball): void {
  a.v -= 0.1 * b.x;
  b.v += 0.1 * a.x * a.v;
}
export function f(balls: Ball[]): number {
  for (let i = 0; i < balls.length; i++) for (let j = i + 1; j < balls.length; j++) push(balls[i], balls[j]);
  return balls[0].v * balls[2].v + balls[1].v;
}`;
    checks(src, 'f', [[{ x: 1, v: 0.5 }, { x: 2, v: -0.25 }, { x: 0.5, v: 1.5 }]]);
    const r = compile(src, { head: 'f', js: true, runtimeImport: null, modes: ['tangent', 'reverse'] });
    const mod = loadGenerated(r.code);
    const b = { x: 1, v: 0.5 };
    const same = [b, { x: 2, v: 1 }, b];
    for (const fn of ['f', 'f_d', 'f_b']) {
      const args = fn === 'f' ? [same] : fn === 'f_d' ? [same, same.map(() => ({ x: 0, v: 0 })), ] : [same, same.map(() => ({ x: 0, v: 0 })), 1];
      expect(() => (mod[fn] as (...a: unknown[]) => unknown)(...args), fn).toThrow(/'push' was given one object as both 'a', which it writes, and 'b'/);
    }
  });

  it('a root found by bisection: its derivative is zero as written, and the self-check and --check say why, not "a bug in tsad"', () => {
    const src = `export function bisect(f: (x: number) => number, lo: number, hi: number): number {
  const flo = f(lo);
  for (let k = 0; k < 60; k++) {
    const mid = 0.5 * (lo + hi);
    if (f(mid) < 0 === flo < 0) lo = mid;
    else hi = mid;
  }
  return 0.5 * (lo + hi);
}
export function depth(k: number, q: number): number {
  return bisect((x) => x * x * x + k * x - q, 0, 10);
}`;
    const r = compile(src, { head: 'depth', js: true, runtimeImport: null });
    const rep = checkCompiled(r, r.code, 'depth', [2, 5]);
    expect(rep.ok).toBe(false);
    expect(rep.messages.join('\n')).toMatch(/exactly zero where the function changes: it depends on the independents only through tests/);
    const depth = (k: number, q: number) => {
      let lo = 0, hi = 10;
      const f = (x: number) => x * x * x + k * x - q;
      const flo = f(lo);
      for (let i = 0; i < 60; i++) {
        const mid = 0.5 * (lo + hi);
        if (f(mid) < 0 === flo < 0) lo = mid;
        else hi = mid;
      }
      return 0.5 * (lo + hi);
    };
    expect(() => grad(depth, { wrt: [0, 1] })(2, 5)).toThrow(/the derivative of 'depth' is zero at k = 2, q = 5[\s\S]*piecewise constant/);
    expect(grad(depth, { wrt: [0, 1], check: false })(2, 5)).toEqual([0, 0]);
  });

  it('a field of the element `find` gives, asserted present (`rows.find(…)!.s`): read at the index found; none found throws as JavaScript does', () => {
    const src = `export function f(xs: number[], k: number): number {
  const rows = xs.map((v, j) => ({ j, s: v * v }));
  const pos = rows.find((e) => e.j === k)!.s;
  return pos * Math.log(1 + rows[0].s);
}`;
    checks(src, 'f', [[1.5, 2, 0.5], 1], ['xs']);
    const r = compile(src, { head: 'f', wrt: ['xs'], js: true, runtimeImport: null, modes: ['reverse'] });
    const mod = loadGenerated(r.code);
    expect(() => (mod.f as (x: number[], k: number) => number)([1, 2], 5)).toThrow(TypeError);
    expect(() => (mod.f_b as (x: number[], xb: number[], k: number, y: number) => number)([1, 2], [0, 0], 5, 1)).toThrow(TypeError);
  });

  it('an object indexed by a key typed by string literals (`SIGN[kind]`, a Record of the flags): the field it names', () => {
    const src = `const SIGN: Record<'call' | 'put', number> = { call: 1, put: -1 };
export function f(F: number, K: number, kind: 'call' | 'put'): number {
  const w = SIGN[kind];
  const legs = { call: F - K, put: K - F * 0.5 };
  return w * Math.exp(legs[kind]);
}`;
    checks(src, 'f', [1.2, 1, 'call']);
    checks(src, 'f', [1.2, 1, 'put']);
    // a key of type string names no known field: refused, with the form that is read
    refused(`export function f(o: Record<string, number>, k: string): number {\n  return o[k] * 2;\n}\n`, 'f', 2, 10, /dynamic keys/);
  });

  it('logical assignments as statements (`s ||= …`, `seen ||= …`, `s &&= …`, `best ??= …`): the value evaluated and assigned only where JavaScript does', () => {
    checks(`export function f(xs: number[], w: number): number {
  let s = 0;
  let best: number | undefined;
  let scale = 0;
  let seen = false;
  for (let i = 0; i < xs.length; i++) {
    scale ||= w * 2;
    seen ||= xs[i] > 1;
    best ??= xs[i] * w;
    s += xs[i] * scale;
    if (seen) s &&= s * 0.5 + w;
  }
  return s + (best ?? 0);
}`, 'f', [[0.5, 1.5, 2], 0.7]);
    refused(`export function f(x: number): number {\n  let y = x;\n  y ??= 2;\n  return y;\n}\n`, 'f', 3, 3, /`\?\?=` on a value that is never null or undefined/);
  });

  it('the default independents leave out arrays used only as indices or labels (--check perturbed them)', () => {
    const r = compile(`export function f(z: number[], k: number[]): number { return z[k[0]] * 2; }\nexport function g(w: number, y: number[]): number { let s = 0; for (let i = 0; i < y.length; i++) s += y[i] === 1 ? Math.log(w) : Math.log(1 - w); return s; }\n`, { head: 'f' });
    expect(r.wrt).toEqual(['z']);
    expect(compile(`export function g(w: number, y: number[]): number { let s = 0; for (let i = 0; i < y.length; i++) s += y[i] === 1 ? Math.log(w) : Math.log(1 - w); return s; }\n`, { head: 'g' }).wrt).toEqual(['w']);
    expect((grad((z: number[], k: number[]) => z[k[0]] * 2) as (z: number[], k: number[]) => number[])([1, 2, 3], [1])).toEqual([0, 2, 0]);
  });
});

describe('trial 20 (2026-11-27): crashes in generated code', () => {
  it('an options object defaulted to `{}` and left out: its derivative parameter defaults to `{}` too (vector mode read a field of undefined)', () => {
    const src = `const DEF = { a: 2 };
export function f(x: number, opts: { a?: number } = {}): number {
  const o = { ...DEF, ...opts };
  return o.a * x * x;
}
`;
    const r = compile(src, { head: 'f', js: true, runtimeImport: null, modes: ['tangent', 'vector', 'reverse'] });
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const m = loadGenerated(r.code, r.runtimeNames) as Record<string, (...a: unknown[]) => unknown>;
    // f = 2x² without options: f' = 4x
    expect((m.f_d(1.5, 1) as number[])[1]).toBeCloseTo(6, 12);
    expect(Array.from((m.f_dv(1.5, new Float64Array([1, 2]), undefined, undefined, 2) as [number, Float64Array])[1])).toEqual([6, 12]);
    expect(m.f_b(1.5, undefined, undefined, 1)).toBeCloseTo(6, 12);
    // and given: a = 3, f' = 6x
    expect((m.f_d(1.5, 1, { a: 3 }, { a: 0 }) as number[])[1]).toBeCloseTo(9, 12);
  });

  it('--check of the adjoint alone with the options object left out: its adjoint is no slot of the result (was a false FAILED)', () => {
    const src = `export function f(x: number, opts: { a?: number } = {}): number {\n  const a = opts.a !== undefined ? opts.a : 2;\n  return a * x * x;\n}\n`;
    const r = compile(src, { head: 'f', js: true, runtimeImport: null, modes: ['reverse'] });
    const rep = checkCompiled(r, r.code, 'f', [1.5]);
    expect(rep.messages).toEqual([]);
    expect(rep.ok).toBe(true);
  });

  it('a selection loop over rows bound by `for…of` (nearest centre) in reverse: the taken row and its shadow are both bound', () => {
    checks(`export function nearest(p: number[], cs: number[][]): number {
  let best = Infinity;
  for (const c of cs) {
    const d = (p[0] - c[0]) ** 2 + (p[1] - c[1]) ** 2;
    if (d < best) best = d;
  }
  return best;
}
`, 'nearest', [[1, 0.5], [[0.5, 0.4], [4.4, 3.9]]]);
  });
});

describe('trial 23 (2026-11-28): the runtime API on arrays grown in the call', () => {
  it('a result grown by index from [] (out[i] = …): its adjoint array grows with it though the store itself is dead', () => {
    // the runtime API drops primal results (`primalResults: false`): the dead `out[i] = …` took the
    // forward sweep's growth of `outb` with it, so the backward sweep read holes (NaN rows from jacrev
    // with check: false; a false self-check failure otherwise)
    const sq = (w: number[]) => {
      const out: number[] = [];
      for (let i = 0; i < w.length; i++) out[i] = w[i] * w[i];
      return out;
    };
    expect(jacrev(sq, { check: false })([0.5, -1, 2])).toEqual([[1, 0, 0], [0, -2, 0], [0, 0, 4]]);
    expect(jacobian(sq)([0.5, -1, 2])).toEqual([[1, 0, 0], [0, -2, 0], [0, 0, 4]]);
    const hist = (xs: number[]) => {
      const bins: number[] = [];
      for (let k = 0; k < 2; k++) bins[k] = 0;
      for (let i = 0; i < xs.length; i++) bins[i % 2] += xs[i] * xs[i];
      return bins;
    };
    expect(jacrev(hist)([1, 2, 3])).toEqual([[2, 0, 6], [0, 4, 0]]);
  });

  it('an output argument grown by push: jacrev refuses (its adjoint would be seeded at the old length), the tangents answer', () => {
    // jacrev returned zero rows here, silently: the seeds were shaped like the empty array passed in
    const pushOut = (p: number[], xs: number[], r: number[]) => {
      r.length = 0;
      for (const x of xs) r.push(p[0] * Math.sin(p[1] * x));
    };
    const p = [1.3, 0.7], xs = [0.5, 1, 2];
    expect(() => jacrev(pushOut, { of: ['r'] })(p, xs, [])).toThrow(/jacrev: the output argument 3 changes its length in the call/);
    const want = xs.map((x) => [Math.sin(p[1] * x), p[0] * x * Math.cos(p[1] * x)]);
    for (const J of [jacobian(pushOut, { of: ['r'] })(p, xs, []), jacfwd(pushOut, { of: ['r'] })(p, xs, [])])
      J.forEach((row, i) => row.forEach((v, j) => expect(v).toBeCloseTo(want[i][j], 12)));
  });

  it('sparseHessian by elements with a trailing optional argument left out', () => {
    // the element functions were called with the arguments given, so `idx` landed in `a`'s place
    function cr(x: number[], a?: number) {
      let t = 0;
      if (a === undefined) a = 100;
      for (let i = 0; i + 1 < x.length; i++) {
        const d = x[i + 1] - x[i] * x[i];
        t += a * d * d + (1 - x[i]) ** 2;
      }
      return t;
    }
    const x = [1.1, 0.9, 1.2];
    const S = sparseHessian(cr)(x);
    expect(S.info.method).toBe('elements');
    const H = hessian(cr)(x);
    for (let e = 0; e < S.values.length; e++) expect(S.values[e]).toBeCloseTo(H[S.rows[e]][S.cols[e]], 9);
    expect(Array.from(hessianDiagonal(cr)(x))).toEqual(H.map((row, i) => row[i]).map((v) => expect.closeTo(v, 9)));
  });
});

describe('arrays with holes (2026-11-28, found by the generator once it returned arrays grown from [])', () => {
  // (each of these was wrong before: NaN adjoints, a primal copy that differed from the source, NaN Hessians)
  const knot = (y: number[]) => {
    const k: number[] = [];
    k[y.length - 1] = y[y.length - 1];
    k[0] = y[0];
    for (let i = 1; i < y.length - 1; i++) k[i] = 0.5 * (y[i - 1] + y[i + 1]) + 0.25 * y[i] * y[i];
    let p = 0;
    for (let i = 1; i < k.length; i++) p += (k[i] - k[i - 1]) * (k[i] - k[i - 1]);
    return p;
  };
  const y = [0.3, -0.2, 0.5, 0.8, -0.6];
  const central = (f: (v: number[]) => number, v: number[], h = 1e-6) =>
    v.map((_, j) => {
      const a = v.slice(), b = v.slice();
      a[j] += h;
      b[j] -= h;
      return (f(a) - f(b)) / (2 * h);
    });

  it('stores that leave holes filled later: gradient and Hessian (forward over reverse)', () => {
    const g = grad(knot, { check: false })(y);
    central(knot, y).forEach((d, j) => expect(g[j]).toBeCloseTo(d, 7));
    const H = hessian(knot)(y);
    y.forEach((_, j) => central((v) => grad(knot)(v)[j], y).forEach((d, i) => expect(H[j][i]).toBeCloseTo(d, 5)));
  });

  it('a test whether an element is there reads the hole as JavaScript does (`=== undefined`, `??`), not as a bounds test', () => {
    const src = `export function f(x: number[]): number {
  const k: number[] = [];
  k[3] = x[0];
  k[0] = x[1];
  let s = 0;
  for (let i = 0; i < 4; i++) s += k[i] === undefined ? 1 : k[i] * k[i];
  return s + (k[2] ?? 0.5) * x[0];
}`;
    const r = compile({ 'f.ts': src }, { head: 'f', modes: ['tangent'], js: true, runtimeImport: null });
    const m = loadGenerated(r.code, r.runtimeNames);
    const f = m.f as (x: number[]) => number;
    expect(f([1, 2])).toBe(4 + 1 + 1 + 1 + 0.5);
    expect((m.f_d as (x: number[], xd: number[]) => [number, number])([1, 2], [1, 0])).toEqual([7.5, 2 + 0.5]);
  });

  it('reverse mode: such a test of an array it fills after, evaluated again on a hole restored as NaN', () => {
    // (was a NaN adjoint: the backward sweep saw the restored NaN as an element that is there)
    const f = (x: number[]) => {
      const y: number[] = [];
      for (let i = 0; i < x.length; i += 2) y[i] = x[i] * x[i];
      let s = 0;
      for (let i = 1; i < x.length; i += 2) {
        s += (y[i] ?? 0.5) * x[i];
        y[i] = 0.5 * y[i - 1] * x[i];
      }
      return s + y[1];
    };
    const x = [0.3, -0.7, 0.5, 1.1, -0.4];
    const g = grad(f, { check: false })(x);
    central(f, x).forEach((d, j) => expect(g[j]).toBeCloseTo(d, 7));
  });

  it('the rows and fields of literals grow their adjoints, and `a[a.length] = v` appends (trial 24)', () => {
    // (each gave NaN gradients, and the Hessians NaN with no self-check error)
    const rows = (x: number[]) => {
      const C: number[][] = [];
      for (let i = 0; i < 2; i++) {
        C.push([]);
        for (let j = 0; j < 2; j++) C[i][j] = x[i] * x[j];
      }
      return C[0][1] + C[1][1];
    };
    expect(grad(rows, { check: false })([1.5, 2])).toEqual([2, 5.5]);
    expect(hessian(rows)([1.5, 2])).toEqual([[0, 1], [1, 2]]);
    // (a field of an object literal: TypeScript, since the runtime API types \`{ v: [] }\` of plain JavaScript as never[])
    const field = `export function f(x: number[]): number {
  const o = { v: [] as number[] };
  for (let i = 0; i < x.length; i++) o.v[i] = x[i] * x[i];
  return o.v[1] + o.v[2];
}`;
    const r = compile({ 'f.ts': field }, { head: 'f', modes: ['reverse'], js: true, runtimeImport: null });
    const xb = [0, 0, 0];
    (loadGenerated(r.code, r.runtimeNames).f_b as (x: number[], xb: number[], s: number) => void)([1, 2, 3], xb, 1);
    expect(xb).toEqual([0, 4, 6]);
    const appended = (x: number[]) => {
      const a: number[] = [];
      for (const v of x) a[a.length] = v * v;
      return a[0] * a[2];
    };
    const x = [0.7, 1.5, 1.5];
    central(appended, x).forEach((d, j) => expect(grad(appended, { check: false })(x)[j]).toBeCloseTo(d, 7));
  });

  it('a memo table [] filled by a recursive helper: its adjoint grows with it', () => {
    const src = `function best(i: number, w: number[], memo: number[]): number {
  if (memo[i] !== undefined) return memo[i];
  let v: number;
  if (i <= 1) v = w[i] * w[i];
  else v = Math.min(best(i - 1, w, memo), best(i - 2, w, memo)) + Math.sin(w[i]);
  memo[i] = v;
  return v;
}
export function cost(w: number[]): number {
  const memo: number[] = [];
  return best(w.length - 1, w, memo);
}`;
    const r = compile({ 'm.ts': src }, { head: 'cost', js: true, runtimeImport: null });
    expect(r.diagnostics).toEqual([]);
    const m = loadGenerated(r.code, r.runtimeNames);
    const rep = checkCompiled(r, m, 'cost', [[0.3, 0.7, -0.2, 0.5, 1.1]]);
    expect(rep.ok, rep.messages.join('; ')).toBe(true);
    const wb = [0, 0, 0, 0, 0];
    (m.cost_b as (w: number[], wb: number[], s: number) => void)([0.3, 0.7, -0.2, 0.5, 1.1], wb, 1);
    expect(wb.every(Number.isFinite)).toBe(true);
  });
});

describe('trial 24 (2026-11-28): refusals of code tsc accepts', () => {
  it('options over defaults whose string flag TypeScript types string, the options a union of literals', () => {
    const src = `export interface Opts { loss?: 'l2' | 'l1'; scale?: number }
const DEFAULTS = { loss: 'l2', scale: 1 };
export function f(x: number, options: Opts = {}): number {
  const o = { ...DEFAULTS, ...options };
  return o.loss === 'l1' ? Math.abs(x) * o.scale : x * x * o.scale;
}`;
    const r = compile({ 'f.ts': src }, { head: 'f', js: true, runtimeImport: null });
    expect(r.diagnostics).toEqual([]);
    const m = loadGenerated(r.code, r.runtimeNames);
    for (const args of [[-0.7], [-0.7, { loss: 'l1', scale: 2 }], [0.4, { scale: 3 }]]) {
      const rep = checkCompiled(r, m, 'f', args);
      expect(rep.ok, rep.messages.join('; ')).toBe(true);
    }
  });

  it('Math.fround: the check takes float32 steps, as for Float32Array stores (U5: a false FAILED at every point)', () => {
    const r = compile({ 'f.ts': 'export function f(x: number): number {\n  return Math.fround(x) + Math.sin(x);\n}\n' }, { head: 'f', js: true, runtimeImport: null });
    const m = loadGenerated(r.code, r.runtimeNames);
    for (const x of [0.7, 1.234, -2.5]) {
      const rep = checkCompiled(r, m, 'f', [x]);
      expect(rep.ok, rep.messages.join('; ')).toBe(true);
    }
  });

  it('a scope entry that is undefined is named as such (U3)', () => {
    let K: number | undefined;
    const f = (x: number[]) => K! * x[0] * x[0];
    expect(() => grad(f, { scope: { K } })([1])).toThrow(/scope entry 'K' is undefined: give the value the function reads under that name/);
  });

  it('new Array(m + 1) filled up to i <= m, or down from m', () => {
    const src = `export function prefix(x: number[]): number {
  const n = x.length - 1;
  const cp = new Array(n + 1);
  cp[0] = x[0];
  for (let i = 1; i <= n; i++) cp[i] = cp[i - 1] * x[i];
  return cp[n];
}
export function suffix(x: number[]): number {
  const n = x.length - 1;
  const M = new Array(n + 1);
  M[n] = x[n];
  for (let i = n - 1; i >= 0; i--) M[i] = x[i] * M[i + 1];
  return M[0];
}`;
    for (const head of ['prefix', 'suffix']) {
      const r = compile({ 'f.ts': src }, { head, js: true, runtimeImport: null });
      expect(r.diagnostics).toEqual([]);
      const rep = checkCompiled(r, loadGenerated(r.code, r.runtimeNames), head, [[0.5, 1.5, -0.75, 2]]);
      expect(rep.ok, rep.messages.join('; ')).toBe(true);
    }
  });
});

describe('the length of an array that grows by stores past its end, read by the backward sweep (a wrong adjoint before grown-lengths.ts)', () => {
  // A store past the end of an array born of `[]` changes its length; the backward sweep read `.length`
  // at its final value where the forward sweep read a shorter one (a finite wrong adjoint, which --check
  // and the first-call check caught, but generated code used directly did not).
  const programs: Record<string, string> = {
    ring: `export function f(xs: number[]): number {
  const ring: number[] = [];
  let s = 0;
  for (let i = 0; i < xs.length; i++) {
    ring[i % 2] = xs[i];
    s += ring[0] * ring.length;
  }
  return s;
}`,
    running_mean: `export function f(xs: number[]): number {
  const seen: number[] = [];
  let s = 0;
  for (let i = 0; i < xs.length; i++) {
    seen[i] = xs[i];
    let m = 0;
    for (const v of seen) m += v;
    s += Math.sin(m / seen.length);
  }
  return s;
}`,
    bound: `export function f(xs: number[]): number {
  const acc: number[] = [];
  let s = 0;
  for (let i = 0; i < xs.length; i++) {
    acc[i] = xs[i] * xs[i];
    for (let j = 0; j < acc.length; j++) s += acc[j] * xs[i];
  }
  return s;
}`,
    past_allocation: `export function f(xs: number[]): number {
  const a: number[] = new Array(1).fill(0);
  let s = 0;
  for (let i = 0; i < xs.length; i++) {
    a[i + 1] = xs[i];
    s += a[i] * a.length;
  }
  return s;
}`,
    index_and_push: `function sq(v: number): number { return v * v; }
export function f(xs: number[]): number {
  const a: number[] = [];
  let s = 0;
  for (let i = 0; i < xs.length; i++) {
    if (i % 2 === 0) a[i] = sq(xs[i]);
    else a.push(xs[i] * 3);
    s += a.length * a[a.length - 1];
  }
  return s;
}`,
    length_before_push: `export function f(xs: number[]): number {
  const a: number[] = [];
  let s = 0;
  for (let i = 0; i < xs.length; i++) {
    const k = a.length + 1;
    a.push(xs[i]);
    s += a[k - 1] * k;
  }
  return s;
}`,
    helper: `function fill(out: number[], k: number, v: number): void {
  out[k] = v;
}
function mean(a: number[]): number {
  let s = 0;
  for (let j = 0; j < a.length; j++) s += a[j];
  return s / a.length;
}
export function f(xs: number[]): number {
  const out: number[] = [];
  let t = 0;
  for (let i = 0; i < xs.length; i++) {
    fill(out, i, xs[i] * xs[i]);
    t += mean(out) * xs[i];
  }
  return t;
}`,
  };
  for (const [name, src] of Object.entries(programs))
    it(`${name}: the reverse mode agrees with the tangent and divided differences`, () => {
      const r = compile({ 'f.ts': src }, { head: 'f', js: true, runtimeImport: null });
      const rep = checkCompiled(r, loadGenerated(r.code, r.runtimeNames), 'f', [[0.5, 1.5, -0.75, 2]]);
      expect(rep.ok, rep.messages.join('; ')).toBe(true);
    });
});

describe("ES2023's copying toSorted and toReversed (trial 25, R4: refused before)", () => {
  it('a quantile of a sorted copy and a weighted reversed copy, the source unchanged, pass the checks', () => {
    const src = `export function f(xs: number[], q: number): number {
  const s = xs.toSorted((a, b) => a - b);
  const r = xs.toReversed();
  const pos = q * (s.length - 1);
  const lo = Math.floor(pos), hi = Math.ceil(pos);
  let t = 0;
  for (let i = 0; i < r.length; i++) t += r[i] * (i + 1);
  return s[lo] + (pos - lo) * (s[hi] - s[lo]) + 0.1 * t + xs[0];
}`;
    const r = compile({ 'f.ts': src }, { head: 'f', js: true, runtimeImport: null });
    const rep = checkCompiled(r, loadGenerated(r.code, r.runtimeNames), 'f', [[0.5, 1.5, -0.75, 2], 0.4]);
    expect(rep.ok, rep.messages.join('; ')).toBe(true);
  });
});

describe("ES2023's findLast and findLastIndex (trial 25, R4: refused before)", () => {
  it('the last element above a threshold, and the index of the last below it, searched from the end', () => {
    const src = `export function f(xs: number[], t: number): number {
  const v = xs.findLast((x) => x * t > 0.5) ?? 0.25;
  const k = xs.findLastIndex((x) => x < t);
  return v * t + (k >= 0 ? xs[k] * k : 0);
}`;
    const r = compile({ 'f.ts': src }, { head: 'f', js: true, runtimeImport: null });
    const rep = checkCompiled(r, loadGenerated(r.code, r.runtimeNames), 'f', [[0.5, 1.5, -0.75, 2], 0.9]);
    expect(rep.ok, rep.messages.join('; ')).toBe(true);
    // the last element above, 2 (index 3), not the first, 1.5; the last below 0.9, -0.75 at index 2
    const f = loadGenerated(r.code, r.runtimeNames).f as (xs: number[], t: number) => number;
    expect(f([0.5, 1.5, -0.75, 2], 0.9)).toBeCloseTo(2 * 0.9 + -0.75 * 2, 12);
  });
});

describe('trial 25 (2026-11-28): refusals of code tsc accepts', () => {
  it('the Hessian of a function reading a row of a module constant (R1: the row restored from the tape was taken for a shadow written)', () => {
    const src = `const A = [[1, 2, 3]];
function g(w: number[], a: number[][]): number { let s = 0; const row = a[0]; for (let i = 0; i < w.length; i++) s += row[i] * w[i] ** 3; return s; }
export function f(w: number[]): number { return g(w, A); }`;
    const r = compileHvp(src, { head: 'f', js: true, runtimeImport: null });
    expect(r.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message)).toEqual([]);
    const A = [[1, 2, 3]];
    const g = (w: number[], a: number[][]): number => { let s = 0; const row = a[0]; for (let i = 0; i < w.length; i++) s += row[i] * w[i] ** 3; return s; };
    const H = hessian((w: number[]) => g(w, A), { scope: { g, A } })([0.3, -0.2, 1]) as number[][];
    expect(H.map((row) => row.map((v) => Math.round(v * 1e9) / 1e9))).toEqual([[1.8, 0, 0], [0, -2.4, 0], [0, 0, 18]]);
  });

  it('the Hessian over rows of a scope matrix taken by forEach and reduce (R1, trial program r01)', () => {
    function ridge(w: number[], X: number[][], y: number[], lam = 0.1): number {
      let loss = 0;
      X.forEach(function (row, i) {
        const pred = row.reduce(function (s, v, j) { return s + v * w[j]; }, 0);
        loss += (pred - y[i]) ** 2;
      });
      return loss / X.length + lam * w.reduce((s, v) => s + v * v, 0);
    }
    const X = [[1, 2], [3, -1], [0.5, 0.5]], y = [1, 0, 2];
    const H = hessian((x: number[]) => ridge(x, X, y, 0.3), { scope: { ridge, X, y } })([0.3, -0.2]) as number[][];
    // (2/3) XᵀX + 0.6 I
    expect(H.map((row) => row.map((v) => Math.round(v * 1e9) / 1e9))).toEqual([[7.433333333, -0.5], [-0.5, 4.1]]);
  });

  it('a write through a reference restored from a tape still counts as a write into any parameter (module data passed there is refused)', () => {
    refused(`import { Tape } from 'tsad/runtime';
const W: number[][] = [[1, 2]];
function h_fwd(tape: Tape, a: number[][]): void { const row = a[0]; tape.pushR(row); }
function h_bwd(tape: Tape, a: number[][], xb: number[]): void { const row: number[] = tape.popR(); row[0] = xb[0]; }
export function f(x: number[]): number {
  const tape = Tape.acquire();
  const xb = [0, 0];
  h_fwd(tape, W);
  h_bwd(tape, W, xb);
  Tape.release(tape);
  return x[0] * W[0][0];
}`, 'f', 9, 3, /'f' writes into the module constant 'W'/);
  });
});

describe('fill(v, start, end) (trial 25, R4: refused before)', () => {
  it('bounds from the start and from the end, clamped as JavaScript does, on plain and typed arrays', () => {
    const src = `export function f(xs: number[], c: number): number {
  const a = xs.slice();
  a.fill(c * c, 1);
  const b = xs.slice().fill(c, -2, -1);
  const t = new Float64Array(xs.length);
  t.fill(c + 1, 1, 3);
  return a[0] * a[2] + b[2] * b[3] + t[0] + t[1] * t[2] * xs[0] + a.fill(0.5, 10)[0];
}`;
    const r = compile({ 'f.ts': src }, { head: 'f', js: true, runtimeImport: null });
    const rep = checkCompiled(r, loadGenerated(r.code, r.runtimeNames), 'f', [[0.5, 1.5, -0.75, 2], 0.7]);
    expect(rep.ok, rep.messages.join('; ')).toBe(true);
    const f = loadGenerated(r.code, r.runtimeNames).f as (xs: number[], c: number) => number;
    expect(f([0.5, 1.5, -0.75, 2], 0.7)).toBeCloseTo(3.59, 12);
  });
});

describe('trial 26', () => {
  it('an array\'s `length` read by a pattern (`const { length } = xs`, `({ length: n } = xs)`): an integer, not a field with a derivative', () => {
    const src = `interface O { v: number[]; s: number }
function twice({ length }: number[]): number { return 2 * length; }
export function f(x: number[], o: O): number {
  let n = 0;
  ({ length: n } = x);
  const { length } = x;
  const { v: { length: m }, s } = o;
  return x[0] * n * s + o.v[0] * m * length + twice(x) * x[1];
}`;
    checks(src, 'f', [[1.5, 0.5, 2], { v: [4, 5], s: 2 }]);
    // the tangent alone (it added the tangent array's length as the length's derivative)
    const r = compile(src, { head: 'f', js: true, runtimeImport: null, modes: ['tangent'] });
    const m = loadGenerated(r.code, r.runtimeNames);
    const [, dx] = (m.f_d as (...a: unknown[]) => [number, number])([1.5, 0.5, 2], [1, 0, 0], { v: [4, 5], s: 2 }, { v: [0, 0], s: 0 });
    expect(dx).toBeCloseTo(3 * 2, 12);
    refused(`export function f(x: number[]): number { const { push } = x; return x[0]; }`, 'f', 1, 50, /destructuring an array by field reads only `length`/);
  });

  it('`xs.concat([])`, a copy (was refused: "cannot type this argument of `concat`", no hint); of rows it shares them', () => {
    checks(`export function f(x: number[], A: number[][]): number {
  const c = x.concat([]);
  c[0] *= 3;
  const R = A.concat([], [[x[1], 2]]);
  R[0][0] *= x[1];
  return c[0] + x[0] + A[0][0] + R[2][0] * R.length;
}`, 'f', [[0.5, 1.5], [[1, 2], [3, 4]]]);
  });

  it('a sorted or reversed copy of objects or rows shares them: writes through the copy reach the original (toSorted, toReversed, [...xs].sort)', () => {
    // (the copy's shadow was made fresh: the tangent lost the write, the adjoint put it on zeros added back later)
    const src = `interface B { x: number; v: number }
export function f(A: number[][], xs: number[], vs: number[]): number {
  const S = A.toSorted((a, b) => b[0] - a[0]);
  S[0][1] *= A[1][0];
  const R = A.toReversed();
  R[0][0] += R[1][1] * 2;
  const bodies: B[] = xs.map((x, i) => ({ x, v: vs[i] }));
  const rb = bodies.toReversed();
  rb[0].v *= rb[1].x;
  const cp = [...bodies];
  cp.sort((a, b) => a.v - b.v);
  cp[1].x -= cp[0].v;
  return A[0][1] * A[1][1] + A[0][0] + bodies[0].v * bodies[1].v + bodies[1].x + bodies[0].x * 3;
}`;
    checks(src, 'f', [[[0.5, 1], [-1.5, 2]], [0.3, 0.9], [1.1, -0.4]]);
    const g = grad((xs: number[], vs: number[]) => {
      const bodies = xs.map((x, i) => ({ x, v: vs[i] }));
      const order = bodies.toSorted((a, b) => a.x - b.x);
      order[0].v *= 3;
      return bodies[0].v + bodies[1].v;
    }, { wrt: ['vs'] });
    // bodies[1] has the least x: its v is tripled
    expect(g([0.5, -1.5], [1, 0.2])).toEqual([[1, 3]]);
    expect(g([-0.5, 1.5], [1, 0.2])).toEqual([[3, 1]]);
  });
});

describe('unshift, splice and with (refused before); shift, unshift and splice read in JavaScript\'s order inside an expression', () => {
  it('an element read before a shift, unshift or splice in the same expression sees the array before it (shift gave the value after it)', () => {
    const src = `export function f(x: number[], c: number): number {
  const a = x.slice();
  const y = a[0] * a.shift()! + a[0];
  const n = a[0] + a.unshift(x[2] * c) * a[0];
  const r = a[1] * a.splice(0, 2, c * c)[1] + a[1];
  return y + n + r + a[a.length - 1];
}`;
    const r = compile({ 'f.ts': src }, { head: 'f', js: true, runtimeImport: null });
    expect(r.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message)).toEqual([]);
    const m = loadGenerated(r.code, r.runtimeNames);
    const orig = (x: number[], c: number): number => {
      const a = x.slice();
      const y = a[0] * a.shift()! + a[0];
      const n = a[0] + a.unshift(x[2] * c) * a[0];
      const r2 = a[1] * a.splice(0, 2, c * c)[1] + a[1];
      return y + n + r2 + a[a.length - 1];
    };
    expect((m.f as typeof orig)([1, 2, 3, 4], 0.5)).toBe(orig([1, 2, 3, 4], 0.5));
    const rep = checkCompiled(r, m, 'f', [[1, 2, 3, 4], 0.5]);
    expect(rep.ok, rep.messages.join('; ')).toBe(true);
  });

  it('splice clamps its start and count as JavaScript does (negative, past the end, fractional, left out)', () => {
    const cases = ['-2, 1', '10, 1', '1.7, 1.2', '1', '-10', '0, -3, 9', '2, 0, 7, 8'];
    for (const args of cases) {
      const src = `export function f(x: number[]): number { const a = x.slice(); const out = a.splice(${args}); let s = 0; for (let i = 0; i < a.length; i++) s += a[i] * (i + 1); for (let i = 0; i < out.length; i++) s += 100 * out[i] * (i + 1); return s + 1000 * a.length + 10000 * out.length; }`;
      const r = compile({ 'f.ts': src }, { head: 'f', js: true, runtimeImport: null });
      const f = loadGenerated(r.code, r.runtimeNames).f as (x: number[]) => number;
      const a = [1, 2, 3, 4, 5];
      const out = (a.splice as (...xs: number[]) => number[])(...args.split(',').map(Number));
      let s = 0;
      for (let i = 0; i < a.length; i++) s += a[i] * (i + 1);
      for (let i = 0; i < out.length; i++) s += 100 * out[i] * (i + 1);
      expect(f([1, 2, 3, 4, 5]), args).toBe(s + 1000 * a.length + 10000 * out.length);
    }
  });

  it('with at an index outside the array throws a RangeError, as JavaScript does', () => {
    const r = compile({ 'f.ts': 'export function f(x: number[], k: number): number { return x.with(k, 2)[0] * x[0]; }' }, { head: 'f', js: true, runtimeImport: null });
    const f = loadGenerated(r.code, r.runtimeNames).f as (x: number[], k: number) => number;
    expect(() => f([1, 2], 2)).toThrow(RangeError);
    expect(() => f([1, 2], -3)).toThrow(RangeError);
    expect(f([1, 2], -2)).toBe(2);
    expect(f([1, 2], 1.5)).toBe(1);
  });
});

describe('a parameter named like a module constant (renamed in generated code) is named by its own name (trial 25: --wrt x was refused)', () => {
  it('wrt and of take the source\'s name; the generated code calls it x0', () => {
    const src = `const x = [3, 4];
export function f(x: number, y: number[]): number { y[0] = x * y[1]; return x * y[0] * 2; }
export function g(y: number[]): number { return x[0] * f(y[0], y); }`;
    const r = compile({ 'f.ts': src }, { head: 'f', wrt: ['x'], of: ['return', 'y'], js: true, runtimeImport: null });
    expect(r.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message)).toEqual([]);
    expect(r.wrt).toEqual(['x0']);
    const rep = checkCompiled(r, loadGenerated(r.code, r.runtimeNames), 'f', [0.7, [1, 2]]);
    expect(rep.ok, rep.messages.join('; ')).toBe(true);
    const bad = compile({ 'f.ts': src }, { head: 'f', wrt: ['z'], js: true, runtimeImport: null });
    expect(bad.diagnostics.map((d) => d.hint)).toContain('parameters: x, y');
  });
});

describe('a var assigned in the body of a loop read after it (trial 25, R6: TypeScript\'s strict check refused it)', () => {
  it('accepted where the loop\'s first test holds on literals, refused at the read where the loop may not run', () => {
    const ok = compile({ 'f.ts': 'export function f(x: number[]): number { for (var i = 0; i < 3; i++) { var t = x[i] * x[i]; } return t * 2; }' }, { head: 'f', js: false, runtimeImport: null });
    expect(ok.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message)).toEqual([]);
    refused('export function f(x: number[]): number {\n  for (var i = 0; i < x.length; i++) { var t = x[i] * x[i]; }\n  return t * 2;\n}', 'f', 3, 10, /'t' may be read before it is assigned/);
    refused('export function f(x: number[]): number {\n  for (var i = 3; i < 3; i++) { var t = x[i] * x[i]; }\n  return t * 2;\n}', 'f', 3, 10, /'t' may be read before it is assigned/);
  });
});

describe('a function held in a var (trial 25, R7)', () => {
  it('declared in a loop body and called there: written out at the call, each pass reading the loop\'s values', () => {
    checks(`export function f(x: number[]): number {
  var s = 0;
  for (var k = 0; k < 3; k++) {
    var term = function (v: number) { return Math.pow(v, k) / (k + 1); };
    for (var i = 0; i < x.length; i++) s += term(x[i]);
  }
  return s;
}`, 'f', [[0.5, 1.5, -0.75]]);
  });

  it('called after the loop, or given by an assignment: refused at the declaration, saying to declare it once', () => {
    refused('export function f(x: number[]): number {\n  var s = 0;\n  for (var k = 0; k < x.length; k++) {\n    var term = function (v: number) { return v * k; };\n    s += term(x[k]);\n  }\n  return s + term(1);\n}', 'f', 4, 9, /the local function 'term' \(a `var`\) is called outside the block that declares it/);
    refused('export function f(x: number[]): number {\n  var s = 0, term: (v: number) => number;\n  for (var k = 0; k < x.length; k++) {\n    term = function (v: number) { return v * k; };\n    s += term(x[k]);\n  }\n  return s;\n}', 'f', 2, 14, /is given its function by an assignment/);
  });
});

describe('a parameter with a default before the seed (trial 25, U4)', () => {
  it('f_b and f_d keep the default: undefined passed for it takes the default, as JavaScript does', () => {
    const src = 'export function f(x: number[], k = 2): number { let s = 0; for (let i = 0; i < x.length; i++) s += x[i] ** k; return s; }';
    const r = compile({ 'f.ts': src }, { head: 'f', js: true, runtimeImport: null });
    const m = loadGenerated(r.code, r.runtimeNames);
    const f_b = m.f_b as (x: number[], xb: number[], k: number | undefined, seed: number) => void;
    const xb = [0, 0];
    f_b([0.5, -1.5], xb, undefined, 1);
    expect(xb).toEqual([1, -3]);
    const cubed = [0, 0];
    f_b([0.5, -1.5], cubed, 3, 1);
    expect(cubed).toEqual([0.75, 6.75]);
    expect((m.f_d as (x: number[], xd: number[], k: number | undefined, kd: number) => [number, number])([0.5, -1.5], [1, 0], undefined, 0)).toEqual([2.5, 1]);
  });
});

describe('JavaScript typed by JSDoc comments (trial 25: `@param {number[]} x` in a .js file was not read)', () => {
  const JS = `/** @typedef {{ w: number[], b: number }} Model */

/** @param {number[]} a @param {number[]} b */
function dot(a, b) {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/**
 * @param {Model} m
 * @param {number[][]} X
 * @param {number[]} y
 * @returns {number}
 */
export function loss(m, X, y) {
  let total = 0;
  X.forEach((row, i) => { total += Math.log(1 + Math.exp(-y[i] * (dot(row, m.w) + m.b))); });
  return total / X.length;
}
`;
  it('a .js file whose types are in JSDoc is checked as JavaScript, as tsc --checkJs does: the comments type the parameters', () => {
    const r = compile({ 'model.js': JS }, { head: 'loss', wrt: ['m'], js: true, runtimeImport: null });
    expect(r.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message)).toEqual([]);
    const rep = checkCompiled(r, loadGenerated(r.code, r.runtimeNames), 'loss', [{ w: [0.5, -0.25], b: 0.1 }, [[1, 2], [0.5, -1]], [1, -1]]);
    expect(rep.ok, rep.messages.join('; ')).toBe(true);
  });

  it('a parameter the comments leave untyped: located, the hint gives the JSDoc to write', () => {
    const r = compile({ 'f.js': '/** @param {number[]} x */\nexport function f(x, y) {\n  return x[0] * y;\n}\n' }, { head: 'f', js: true, runtimeImport: null });
    const errors = r.diagnostics.filter((d) => d.severity === 'error');
    expect(errors.map((d) => `${d.file}:${d.line}:${d.col} ${d.hint}`)).toEqual([expect.stringMatching(/^f\.js:2:22 give it a JSDoc type.*@param \{number\[\]\} y/)]);
  });
});

describe('trial 28 (2026-11-28): an array shortened and grown again by a store past its new end', () => {
  it('the adjoint grows the shadow with it and gives the length back (was NaN, or the grown length read by the backward sweep)', () => {
    const at = [[1.2, 0.7, -0.4, 0.9], 0.5];
    // the index read before the pop (JavaScript evaluates the target first): the element put back
    checks(`export function f(a: number[], t: number): number {\n  const b = a.slice();\n  b[b.length - 1] = b.pop()! * t;\n  return b[0] + b[1] * 2 + b[2] * 3 + b[3] * 4 + b.length;\n}\n`, 'f', at);
    // a store at the old last index after a shift, a splice or a truncation
    checks(`export function f(a: number[], t: number): number {\n  const b = a.slice();\n  b.shift();\n  b[3] = b[0] * t;\n  return b[3] + b[0] * b.length;\n}\n`, 'f', at);
    checks(`export function f(a: number[], t: number): number {\n  const b = a.slice();\n  b.splice(1, 2);\n  b[2] = b[0] * t;\n  b[3] = t;\n  return b[3] * b[2] + b[1];\n}\n`, 'f', at);
    checks(`export function f(a: number[], t: number): number {\n  const b = a.slice();\n  b.length = 3;\n  b[3] = b[0] * t;\n  return b[3] * b.length;\n}\n`, 'f', at);
    // a finite wrong derivative before: the backward sweep read the grown length (4) where the forward read 3
    const r = compile(`export function f(a: number[], t: number): number {\n  const b = a.slice();\n  b.pop();\n  const s = b.length * t * t;\n  b[3] = 2;\n  return s + b[0] + b[3];\n}\n`, { head: 'f', js: true, runtimeImport: null, modes: ['reverse'] });
    const ab = [0, 0, 0, 0];
    const tb = loadGenerated(r.code, r.runtimeNames).f_b([1.2, 0.7, -0.4, 0.9], ab, 0.5, 1);
    expect(tb).toBeCloseTo(3, 12);
    expect(ab).toEqual([1, 0, 0, 0]);
  });
});

describe('trial 28: an object literal given to Object.assign or spread into another (refused before, with a hint naming an outer literal there was none of)', () => {
  it('its fields are copied where it stands, in order, after what comes before', () => {
    checks(`interface O { a: number; b: number }
export function f(o: O, p: O): number {
  const c = Object.assign({}, o, { b: p.a * 2 });
  const d = { ...{ a: o.b, b: 1 }, ...p, ...{ b: c.a * o.a } };
  const e = Object.assign({}, { a: 3, b: p.b }, { ...o, a: p.a * p.b });
  c.a += 1;
  return c.a * c.b + d.a * d.b + e.a * e.b;
}`, 'f', [{ a: 1.5, b: 0.5 }, { a: 0.2, b: -2 }]);
  });
});

describe('trial 28: a push used as a value', () => {
  it('is refused saying push is a statement and how to read the length (the hint said to write loops)', () => {
    refused('export function f(xs: number[], t: number): number {\n  const q = [...xs];\n  const n = q.push(t * t);\n  return n * q[0];\n}\n', 'f', 3, 13, /`push` is supported as a statement of its own/);
    const r = compile('export function f(xs: number[], t: number): number {\n  const q = [...xs];\n  const n = q.push(t * t);\n  return n * q[0];\n}\n', { head: 'f' });
    expect(r.diagnostics[0]?.hint).toMatch(/q\.push\(…\); const n = q\.length;/);
  });
});

describe('trial 28: `Array(n).fill([])`', () => {
  it('is refused as a fill sharing one row, not as a `never[]` literal', () => {
    refused('export function f(x: number[]): number {\n  const rows: number[][] = Array(2).fill([]);\n  rows[0].push(x[0]);\n  return rows[1][0];\n}\n', 'f', 2, 28, /`fill` with an array or object would share one value/);
    refused('export function f(x: number[]): number {\n  const o: { a: number }[] = new Array(2).fill({ a: 0 });\n  o[0].a = x[0];\n  return o[1].a;\n}\n', 'f', 2, 30, /`fill` with an array or object would share one value/);
  });
});

describe('trial 28: a field chosen by a string-literal key, assigned', () => {
  it('is refused saying such a field is read only and how to assign it (was "this assignment target is not supported")', () => {
    refused(`export function f(xs: number[]): number {\n  const parts: Record<'lo' | 'hi', number> = { lo: 0, hi: 0 };\n  for (const x of xs) {\n    const k: 'lo' | 'hi' = x > 0.3 ? 'hi' : 'lo';\n    parts[k] += x * x;\n  }\n  return parts.lo * parts.hi;\n}\n`, 'f', 5, 5, /a field chosen by a string-literal key \(`parts\[k\]`\) is read, not assigned/);
  });
});
