/**
 * switch statements: on string-literal flags and integers, with break,
 * fall-through of empty cases, default, and switch inside loops.
 */

export type Activation = 'relu' | 'tanh' | 'sigmoid' | 'softplus' | 'identity';

export function activate(x: number, kind: Activation): number {
  let y: number;
  switch (kind) {
    case 'relu':
      y = x > 0 ? x : 0;
      break;
    case 'tanh':
      y = Math.tanh(x);
      break;
    case 'sigmoid':
      y = 1 / (1 + Math.exp(-x));
      break;
    case 'softplus':
      y = Math.log1p(Math.exp(x));
      break;
    default:
      y = x;
  }
  return y * x;
}

export function loss(pred: number, target: number, kind: 'l2' | 'l1' | 'huber' | 'logcosh'): number {
  const r = pred - target;
  switch (kind) {
    case 'l2':
      return r * r;
    case 'l1':
      return Math.abs(r);
    case 'huber':
      return Math.abs(r) < 1 ? 0.5 * r * r : Math.abs(r) - 0.5;
    case 'logcosh':
      return Math.log(Math.cosh(r));
  }
}

export function toMeters(x: number, unit: 'm' | 'cm' | 'mm' | 'km' | 'in' | 'ft'): number {
  let f = 1;
  switch (unit) {
    case 'cm':
      f = 0.01;
      break;
    case 'mm':
      f = 0.001;
      break;
    case 'km':
      f = 1000;
      break;
    case 'in':
    case 'ft':
      f = unit === 'in' ? 0.0254 : 0.3048;
      break;
    case 'm':
    default:
      f = 1;
  }
  return f * x * x;
}

export function polyByDegree(x: number, degree: number): number {
  let s = 0;
  switch (degree) {
    case 0:
      s = 1;
      break;
    case 1:
      s = 1 + x;
      break;
    case 2:
    case 3:
      s = 1 + x + 0.5 * x * x;
      if (degree === 3) s += (x * x * x) / 6;
      break;
    default:
      s = Math.exp(x);
  }
  return s;
}

export function cyclicWeights(xs: number[]): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) {
    switch (i % 3) {
      case 0:
        s += xs[i];
        break;
      case 1:
        s -= 0.5 * xs[i] * xs[i];
        break;
      default:
        s *= 0.9;
        break;
    }
  }
  return s;
}

export function integrate(k: number, y0: number, method: 'euler' | 'midpoint' | 'heun'): number {
  let y = y0;
  const h = 0.1;
  for (let i = 0; i < 10; i++) {
    switch (method) {
      case 'euler':
        y = y + h * (-k * y);
        break;
      case 'midpoint': {
        const ym = y + 0.5 * h * (-k * y);
        y = y + h * (-k * ym);
        break;
      }
      case 'heun': {
        const f0 = -k * y;
        const y1 = y + h * f0;
        y = y + 0.5 * h * (f0 - k * y1);
        break;
      }
    }
  }
  return y;
}

export function quadrature(a: number, b: number, rule: 'mid' | 'trap' | 'simpson'): number {
  const f0 = Math.sin(a);
  const f1 = Math.sin(b);
  const fm = Math.sin(0.5 * (a + b));
  const w = b - a;
  switch (rule) {
    case 'mid':
      return w * fm;
    case 'trap':
      return 0.5 * w * (f0 + f1);
    default:
      return (w / 6) * (f0 + 4 * fm + f1);
  }
}

/** switch on an active-derived integer bucket (passive selector). */
export function bucketedRate(x: number): number {
  const bucket = Math.floor(x);
  switch (bucket) {
    case 0:
      return 0.1 * x;
    case 1:
      return 0.1 + 0.2 * (x - 1);
    case 2:
      return 0.3 + 0.3 * (x - 2) * (x - 2);
    default:
      return 0.6 + Math.log(x - 2);
  }
}
