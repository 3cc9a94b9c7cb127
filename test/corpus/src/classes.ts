/**
 * Classes: fields, constructors (parameter properties, initializers), methods mutating `this`,
 * getters and setters, static factories, value classes returning new instances, instances held in
 * arrays and in fields of other instances.
 */

export class Particle {
  vel = 0;
  constructor(public pos: number, public mass: number) {}

  step(dt: number, force: number): void {
    this.vel += (force / this.mass) * dt;
    this.pos += this.vel * dt;
  }

  get kinetic(): number {
    return 0.5 * this.mass * this.vel * this.vel;
  }

  set speed(v: number) {
    this.vel = v;
  }

  static atRest(x: number): Particle {
    return new Particle(x, 1);
  }
}

/** a damped spring integrated with semi-implicit Euler; position plus final kinetic energy */
export function springRun(x0: number, v0: number, k: number, c: number): number {
  const p = Particle.atRest(x0);
  p.speed = v0;
  for (let i = 0; i < 20; i++) p.step(0.05, -k * p.pos - c * p.vel);
  return p.pos + p.kinetic;
}

export class Vec2 {
  constructor(readonly x: number, readonly y: number) {}

  add(o: Vec2): Vec2 {
    return new Vec2(this.x + o.x, this.y + o.y);
  }

  scale(s: number): Vec2 {
    return new Vec2(this.x * s, this.y * s);
  }

  dot(o: Vec2): number {
    return this.x * o.x + this.y * o.y;
  }

  get norm(): number {
    return Math.hypot(this.x, this.y);
  }
}

/** the length of a polyline through points given as coordinate arrays, with a pull towards a target */
export function polylineCost(xs: number[], ys: number[], tx: number, ty: number): number {
  const pts: Vec2[] = [];
  for (let i = 0; i < xs.length; i++) pts.push(new Vec2(xs[i], ys[i]));
  let len = 0;
  for (let i = 1; i < pts.length; i++) len += pts[i].add(pts[i - 1].scale(-1)).norm;
  const last = pts[pts.length - 1];
  const miss = last.add(new Vec2(-tx, -ty));
  return len + 0.5 * miss.dot(miss);
}

/** a scalar-state Kalman filter per coordinate, with array fields updated in place */
export class KalmanFilter {
  mean: number[];
  variance: number[];
  readonly processNoise: number;

  constructor(n: number, q: number) {
    this.mean = new Array(n).fill(0);
    this.variance = new Array(n).fill(1);
    this.processNoise = q;
  }

  update(z: number[], r: number): void {
    for (let i = 0; i < this.mean.length; i++) {
      const p = this.variance[i] + this.processNoise;
      const gain = p / (p + r);
      this.mean[i] += gain * (z[i] - this.mean[i]);
      this.variance[i] = (1 - gain) * p;
    }
  }

  get spread(): number {
    let s = 0;
    for (const v of this.variance) s += v;
    return s;
  }
}

/** the squared error of a filtered track against the truth, plus the summed posterior variance */
export function kalmanTrack(obs: number[][], truth: number[], q: number, r: number): number {
  const kf = new KalmanFilter(truth.length, q);
  for (const z of obs) kf.update(z, r);
  let err = 0;
  for (let i = 0; i < truth.length; i++) err += (kf.mean[i] - truth[i]) ** 2;
  return err + kf.spread;
}

export class Layer {
  constructor(public weights: number[][], public bias: number[]) {}

  forward(input: number[]): number[] {
    const out: number[] = [];
    for (let i = 0; i < this.weights.length; i++) {
      let s = this.bias[i];
      for (let j = 0; j < input.length; j++) s += this.weights[i][j] * input[j];
      out.push(Math.tanh(s));
    }
    return out;
  }
}

export class MLP {
  layers: Layer[] = [];

  addLayer(w: number[][], b: number[]): MLP {
    this.layers.push(new Layer(w, b));
    return this;
  }

  predict(x: number[]): number[] {
    let h = this.layers[0].forward(x);
    for (let l = 1; l < this.layers.length; l++) h = this.layers[l].forward(h);
    return h;
  }
}

/** squared loss of a two-layer perceptron built from Layer objects held in an array */
export function mlpLoss(w1: number[][], b1: number[], w2: number[][], b2: number[], x: number[], target: number): number {
  const net = new MLP();
  net.addLayer(w1, b1);
  net.addLayer(w2, b2);
  const y = net.predict(x);
  return (y[0] - target) ** 2;
}

export class Account {
  private total = 0;
  private count = 0;

  get average(): number {
    return this.count === 0 ? 0 : this.total / this.count;
  }

  set latest(v: number) {
    this.total += v;
    this.count++;
  }
}

/** a running average fed through a setter, read through a getter */
export function runningAverage(xs: number[]): number {
  const acc = new Account();
  for (const x of xs) acc.latest = x * x;
  return acc.average;
}

/** a class used only as a type: instances come from the caller */
export function orbitEnergy(p: Particle, g: number): number {
  return p.kinetic - g * p.mass / Math.abs(p.pos);
}

export class Sensor {
  bias = 0;
  constructor(public gain: number) {}

  read(raw: number): number {
    return this.gain * raw + this.bias;
  }

  calibrate(ref: number, raw: number): void {
    this.bias = ref - this.gain * raw;
  }
}

/** a sensor with exponential smoothing: its constructor calls super(…), its method super.read */
export class SmoothedSensor extends Sensor {
  last: number;

  constructor(gain: number, public alpha: number) {
    super(gain);
    this.last = 0;
  }

  smooth(raw: number): number {
    this.last = this.alpha * super.read(raw) + (1 - this.alpha) * this.last;
    return this.last;
  }
}

/** a subclass with the implicit constructor (it takes Sensor's parameters) */
export class FixedSensor extends Sensor {}

/** inherited methods called on subclass instances, a smoothed series summed with a raw reading */
export function sensorFusion(raws: number[], gain: number, alpha: number, ref: number): number {
  const s = new SmoothedSensor(gain, alpha);
  s.calibrate(ref, raws[0]);
  let acc = 0;
  for (const r of raws) acc += s.smooth(r);
  const f = new FixedSensor(gain * 0.5);
  return acc + f.read(raws[raws.length - 1]) + s.read(ref);
}

/** Welford's running moments, with the method named `push` as such accumulators often name it (not Array's push). */
export class RunningStats {
  n = 0;
  mean = 0;
  m2 = 0;

  push(x: number): void {
    this.n++;
    const d = x - this.mean;
    this.mean += d / this.n;
    this.m2 += d * (x - this.mean);
  }
}

export function sampleVariance(xs: number[]): number {
  const stats = new RunningStats();
  for (const x of xs) stats.push(x);
  return stats.m2 / (stats.n - 1);
}

/** A spring chain whose energy maps over its positions with an arrow that calls another method through `this`. */
export class SpringChain {
  k = 2;
  xs: number[];

  constructor(xs: number[]) {
    this.xs = xs;
  }

  force(i: number): number {
    return -this.k * this.xs[i];
  }

  energy(): number {
    return this.xs.map((_, i) => -0.5 * this.force(i) * this.xs[i]).reduce((a, b) => a + b, 0);
  }
}

export function chainEnergy(x: number[]): number {
  return new SpringChain(x.slice()).energy();
}

// A namespace object of helpers (numeric.js / gl-matrix style): members are methods, an arrow and a
// function expression, calling each other through the object's name and through `this`.
const vec2 = {
  dot(a: number[], b: number[]): number {
    return a[0] * b[0] + a[1] * b[1];
  },
  length(a: number[]): number {
    return Math.sqrt(this.dot(a, a));
  },
  scaleAndAdd: (out: number[], a: number[], b: number[], s: number): number[] => {
    out[0] = a[0] + b[0] * s;
    out[1] = a[1] + b[1] * s;
    return out;
  },
  normalize: function (out: number[], a: number[]): number[] {
    const n = vec2.length(a);
    out[0] = a[0] / n;
    out[1] = a[1] / n;
    return out;
  },
};

/** a particle pulled towards the origin along the unit direction, its path length summed */
export function pulledPath(p0: number[], k: number, dt: number): number {
  const p = p0.slice();
  const dir = [0, 0];
  let path = 0;
  for (let s = 0; s < 4; s++) {
    vec2.normalize(dir, p);
    const q = vec2.scaleAndAdd([0, 0], p, dir, -k * dt * vec2.dot(p, p));
    path += vec2.length(q);
    p[0] = q[0];
    p[1] = q[1];
  }
  return path;
}

/** A buffer field that starts empty and grows by index stores through a method (its adjoint grows with it). */
class GrowingLog {
  values: number[] = [];
  record(k: number, v: number): void {
    this.values[k] = v;
  }
}
export function growingLogEnergy(x: number[]): number {
  const log = new GrowingLog();
  for (let i = x.length - 1; i >= 0; i--) log.record(i, x[i] * Math.tanh(x[0] + i));
  let e = 0;
  for (let i = 1; i < log.values.length; i++) e += (log.values[i] - log.values[i - 1]) ** 2;
  return e;
}
