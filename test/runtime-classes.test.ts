// Classes in the runtime API's `scope`, in plain JavaScript as people write them: fields assigned in the
// constructor or declared with an initializer, getters, setters, static factories, `extends` with
// `super`, fields built empty and filled by `push`, instances made inside the function and instances
// passed as arguments (alone, in arrays, holding arrays of arrays). Every program is checked through
// grad (or jacobian), vjp and jvp against central divided differences computed here.
//
// The programs are source text made into classes and functions with `new Function`, so what tsad reads
// back with `toString()` is exactly what is written here.
import { describe, expect, it } from 'vitest';
import { grad, hessian, jacobian, jvp, vjp } from '../src/index.js';
import { type AnyFn, close, deepClone, dividedJacobian, flat } from './support/numeric.js';


/** the named classes and functions of a source text */
function load(src: string, names: string[]): Record<string, AnyFn> {
  return new Function(`${src}\nreturn { ${names.join(', ')} };`)() as Record<string, AnyFn>;
}

interface Program {
  name: string;
  src: string;
  head: string;
  /** the classes and helpers passed in scope */
  scope: string[];
  /** the arguments, made with the program's own classes */
  args: (defs: Record<string, AnyFn>) => unknown[];
  wrt: number[];
}

/** f through jacobian, grad (scalar results), vjp and jvp, each against divided differences */
function run(p: Program): void {
  const defs = load(p.src, [p.head, ...p.scope]);
  const f = defs[p.head];
  const scope = Object.fromEntries(p.scope.map((k) => [k, defs[k]]));
  const args = p.args(defs);
  const opts = { wrt: p.wrt, scope };
  const D = dividedJacobian(f, args, p.wrt, 1e-6);
  const y = f(...deepClone(args));
  if (typeof y === 'number') close(flat(grad(f, opts)(...args)), D[0], 'grad');
  close(jacobian(f, opts)(...args).flat(), dividedJacobian(f, args, p.wrt, 1e-6, true).flat(), 'jacobian');
  const u = flat(y).map((_, i) => Math.sin(i + 1));
  const [value, back] = vjp(f, args as never, opts);
  close(flat(value), flat(y), 'vjp value');
  const seed = typeof y === 'number' ? u[0] : (y as number[]).map((_, i) => u[i]);
  close(flat(back(seed as never)), D[0].map((_, j) => D.reduce((s, row, i) => s + u[i] * row[j], 0)), 'vjp');
  const tangents = p.wrt.map((a) => deepClone(args[a]));
  const v = tangents.flatMap((t) => flat(t));
  const [, dy] = jvp(f, args as never, tangents as never, opts);
  close(flat(dy), D.map((row) => row.reduce((s, x, j) => s + x * v[j], 0)), 'jvp');
}

const PROGRAMS: Program[] = [
  {
    // instances pushed by a forEach callback into an empty array: the array is typed once the class is
    // in the module, and its elements type the method's parameter (trial 22)
    name: 'instances pushed in a forEach, passed to a method',
    src: `class Bead {
  constructor(x) { this.x = x; }
  dist(o) { return Math.abs(this.x - o.x) + 0.1; }
}
function chain(xs) {
  const bs = [];
  xs.forEach((x) => bs.push(new Bead(x)));
  let e = 0;
  for (let i = 0; i + 1 < bs.length; i++) e += 1 / bs[i].dist(bs[i + 1]);
  return e;
}`,
    head: 'chain',
    scope: ['Bead'],
    args: () => [[0.3, 1.5, 2.5, 2.1]],
    wrt: [0],
  },
  {
    name: 'a polynomial class made inside the function, its fields assigned in the constructor',
    src: `
class Poly {
  constructor(coeffs) {
    this.coeffs = coeffs;
    this.degree = coeffs.length - 1;
  }
  at(x) {
    let s = 0;
    for (let i = this.degree; i >= 0; i--) s = s * x + this.coeffs[i];
    return s;
  }
}
function fit(c, xs, ys) {
  const p = new Poly(c);
  let e = 0;
  for (let i = 0; i < xs.length; i++) {
    const r = p.at(xs[i]) - ys[i];
    e += r * r;
  }
  return e;
}`,
    head: 'fit',
    scope: ['Poly'],
    args: () => [[1, 0.5, -0.2], [0.1, 0.7, 1.3], [1, 2, 0.5]],
    wrt: [0],
  },
  {
    name: 'instances passed in an array, a method returning a new instance, a getter (the source never names the class)',
    src: `
class Vec2 {
  constructor(x, y) {
    this.x = x;
    this.y = y;
  }
  minus(o) {
    return new Vec2(this.x - o.x, this.y - o.y);
  }
  get length() {
    return Math.hypot(this.x, this.y);
  }
}
function pathLength(points) {
  let total = 0;
  for (let i = 1; i < points.length; i++) total += points[i].minus(points[i - 1]).length;
  return total;
}`,
    head: 'pathLength',
    scope: ['Vec2'],
    args: ({ Vec2 }) => [[new (Vec2 as any)(0, 0), new (Vec2 as any)(1, 2), new (Vec2 as any)(3, 1)]],
    wrt: [0],
  },
  {
    name: 'a running-statistics accumulator: fields built empty, filled by push, a getter with a branch',
    src: `
class RunningStats {
  constructor() {
    this.n = 0;
    this.mean = 0;
    this.m2 = 0;
    this.seen = [];
  }
  push(x) {
    this.n++;
    const d = x - this.mean;
    this.mean += d / this.n;
    this.m2 += d * (x - this.mean);
    this.seen.push(x);
  }
  get variance() {
    return this.n > 1 ? this.m2 / (this.n - 1) : 0;
  }
}
function sampleVariance(xs) {
  const s = new RunningStats();
  for (const x of xs) s.push(x);
  return s.variance + s.seen[0];
}`,
    head: 'sampleVariance',
    scope: ['RunningStats'],
    args: () => [[1, 2, 4, 7, 3]],
    wrt: [0],
  },
  {
    name: 'extends with super(…) and super.m(), a field declared with an initializer',
    src: `
class Shape {
  scale = 1;
  constructor(side) {
    this.side = side;
  }
  area() {
    return this.scale * this.side * this.side;
  }
}
class Circle extends Shape {
  constructor(r) {
    super(r);
    this.r = r;
  }
  area() {
    return Math.PI * this.r * this.r;
  }
  squareTimes(k) {
    return super.area() * k;
  }
}
function shapes(x) {
  const c = new Circle(x[0]);
  return c.area() + c.squareTimes(x[1]);
}`,
    head: 'shapes',
    scope: ['Shape', 'Circle'],
    args: () => [[1.3, 2]],
    wrt: [0],
  },
  {
    name: 'a setter and getter pair over a field, a static factory',
    src: `
class Temperature {
  constructor(celsius) {
    this._c = celsius;
  }
  get fahrenheit() {
    return this._c * 9 / 5 + 32;
  }
  set fahrenheit(v) {
    this._c = (v - 32) * 5 / 9;
  }
  static fromKelvin(k) {
    return new Temperature(k - 273.15);
  }
}
function warmed(x) {
  const t = Temperature.fromKelvin(x[0]);
  t.fahrenheit = t.fahrenheit * x[1];
  return t._c * t._c;
}`,
    head: 'warmed',
    scope: ['Temperature'],
    args: () => [[300, 1.1]],
    wrt: [0],
  },
  {
    name: 'a scalar Kalman filter class updated in a loop',
    src: `
class Kalman {
  constructor(q, r) {
    this.q = q;
    this.r = r;
    this.x = 0;
    this.p = 1;
  }
  update(z) {
    this.p += this.q;
    const k = this.p / (this.p + this.r);
    this.x += k * (z - this.x);
    this.p *= 1 - k;
    return this.x;
  }
}
function filterError(noise, zs) {
  const f = new Kalman(noise[0], noise[1]);
  let s = 0;
  for (const z of zs) {
    const e = f.update(z) - z;
    s += e * e;
  }
  return s;
}`,
    head: 'filterError',
    scope: ['Kalman'],
    args: () => [[0.1, 0.5], [1, 1.2, 0.9, 1.4, 1.1]],
    wrt: [0],
  },
  {
    name: 'an MLP from layer objects passed as the argument, map and reduce in a method, a vector result',
    src: `
class Layer {
  constructor(w, b) {
    this.w = w;
    this.b = b;
  }
  forward(x) {
    return this.w.map((row, i) => Math.tanh(row.reduce((s, wij, j) => s + wij * x[j], this.b[i])));
  }
}
function mlp(layers, x) {
  let h = x;
  for (const layer of layers) h = layer.forward(h);
  return h;
}`,
    head: 'mlp',
    scope: ['Layer'],
    args: ({ Layer }) => [[new (Layer as any)([[0.1, 0.2], [0.3, -0.4]], [0.1, 0]), new (Layer as any)([[0.5, -0.5], [0.2, 0.7]], [0.2, -0.1])], [1, 2]],
    wrt: [0, 1],
  },
  {
    name: 'a method calling a helper in scope, a constructor parameter with a default, the class under another name',
    src: `
function sq(v) {
  return v * v;
}
const Weighted = class {
  constructor(w, power = 2) {
    this.w = w;
    this.power = power;
  }
  cost(x) {
    let s = 0;
    for (let i = 0; i < x.length; i++) s += sq(this.w[i] * x[i]) * this.power;
    return s;
  }
};
const Model = Weighted;
function objective(w, x) {
  return new Model(w).cost(x) + new Model(w, 3).cost(x);
}`,
    head: 'objective',
    scope: ['Model', 'sq'],
    args: () => [[1, 2], [3, -4]],
    wrt: [0, 1],
  },
];

describe('classes in the runtime API scope, against divided differences (grad, jacobian, vjp, jvp)', () => {
  for (const p of PROGRAMS) it(p.name, () => run(p));

  it('a constructor or method some calls give fewer arguments: those parameters are optional', () => {
    const { f, Acc } = load(`
class Acc {
  constructor(scale) { this.scale = scale ?? 1; this.s = 0; }
  add(x, w) { this.s += (w ?? 1) * x * this.scale; }
}
function f(xs) { const a = new Acc(); const b = new Acc(2); for (const x of xs) { a.add(x); b.add(x, x); } return a.s + b.s; }`, ['f', 'Acc']);
    // Σx + 2Σx²
    expect(grad(f, { scope: { Acc } })([1, 2, 3])).toEqual([5, 9, 13]);
  });

  it('the Hessian of a function using a class with inheritance', () => {
    const p = PROGRAMS.find((q) => q.head === 'shapes')!;
    const defs = load(p.src, [p.head, ...p.scope]);
    const H = hessian(defs.shapes, { scope: { Shape: defs.Shape, Circle: defs.Circle } })([1.3, 2]) as number[][];
    // π r² + r² k: ∂²/∂r² = 2π + 2k, ∂²/∂r∂k = 2r
    close(H.flat(), [2 * Math.PI + 4, 2.6, 2.6, 0], 'hessian');
  });

  it('the gradient for an instance argument is shaped like its fields', () => {
    const p = PROGRAMS.find((q) => q.head === 'pathLength')!;
    const defs = load(p.src, [p.head, 'Vec2']);
    const V = defs.Vec2 as any;
    const g = grad(defs.pathLength, { scope: { Vec2: V } })([new V(0, 0), new V(3, 4)]) as { x: number; y: number }[];
    expect(g).toEqual([{ x: -0.6, y: -0.8 }, { x: 0.6, y: 0.8 }]);
  });

  it('a field the class gives only `null` → an error naming the field, with a hint on how the runtime API types fields', () => {
    const { f, Rope } = load(`
class Rope {
  constructor(k) { this.k = k; this.end = null; }
}
function f(x, k) { const r = new Rope(k); return r.k * x; }`, ['f', 'Rope']);
    expect(() => grad(f, { scope: { Rope } })(1, 2)).toThrow(/whose field 'end' has type 'any'[^]*hint: the runtime API types a class's field from the values the class assigns/);
  });

  it('a #private field → one located error saying it is not supported', () => {
    const { total, Acc } = load(`
class Acc {
  #sum = 0;
  add(x) { this.#sum += x * x; }
  get total() { return this.#sum; }
}
function total(xs) { const a = new Acc(); for (const x of xs) a.add(x); return a.total; }`, ['total', 'Acc']);
    expect(() => grad(total, { scope: { Acc } })([1, 2])).toThrow(/#private' members \('#sum'\) are not supported[^]*function\.ts:\d+:\d+|function\.ts:\d+:\d+[^]*#private/);
  });

  it('a class keeping objects that its method writes through another method → refused, located (was a silent wrong gradient)', () => {
    const { energy, Body, Link } = load(`
class Body {
  constructor(x) { this.x = x; this.f = 0; }
  push(f) { this.f += f; }
}
class Link {
  constructor(a, b) { this.a = a; this.b = b; }
  pull(k) { const d = this.b.x - this.a.x; this.a.push(k * d); this.b.push(-k * d); }
}
function energy(x) {
  const bodies = [new Body(x[0]), new Body(x[1])];
  const l = new Link(bodies[0], bodies[1]);
  l.pull(x[2]);
  return bodies[0].f * bodies[1].f + bodies[0].x;
}`, ['energy', 'Body', 'Link']);
    expect(() => grad(energy, { scope: { Body, Link } })([0.3, 1.2, 2])).toThrow(/function\.ts:\d+:\d+: error: the instance `new Link\(…\)` keeps an array or object[^]*hint: keep a copy where it is stored/);
  });
});

describe('a class whose method is replaced after its definition', () => {
  it('is refused, also after a first call cached its derivative, never answered with the old method', () => {
    const P = new Function('return class P { constructor(x) { this.x = x; } e() { return this.x * this.x; } };')();
    const S = new Function('return class S { static f(x) { return x * x; } };')();
    const useP = new Function('P', 'return function useP(x) { return new P(x).e(); };')(P);
    const useS = new Function('S', 'return function useS(x) { return S.f(x); };')(S);
    expect(grad(useP, { scope: { P } })(3)).toBeCloseTo(6, 12);
    expect(grad(useS, { scope: { S } })(3)).toBeCloseTo(6, 12);
    P.prototype.e = function (this: { x: number }) { return this.x * this.x * this.x; };
    S.f = (x: number) => x * x * x;
    expect(() => grad(useP, { scope: { P } })(3)).toThrow(/the method 'e' of class 'P' was replaced after the class was defined/);
    expect(() => grad(useS, { scope: { S } })(3)).toThrow(/the static member 'f' of class 'S' was replaced after the class was defined/);
  });
});
