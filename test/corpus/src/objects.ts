/**
 * Interfaces, type aliases, object literals, field reads/writes,
 * object destructuring, tuples, and functions returning objects.
 */

export interface Point {
  x: number;
  y: number;
}

export interface Particle {
  pos: number[];
  vel: number[];
  mass: number;
}

export type Quadratic = { a: number; b: number; c: number };

export interface Stats {
  mean: number;
  variance: number;
}

export function pointDistance(p: Point, q: Point): number {
  const dx = p.x - q.x;
  const dy = p.y - q.y;
  return Math.sqrt(dx * dx + dy * dy);
}

export function evalQuadratic(q: Quadratic, x: number): number {
  const { a, b, c } = q;
  return (a * x + b) * x + c;
}

export function kineticEnergy(p: Particle): number {
  let v2 = 0;
  for (let i = 0; i < p.vel.length; i++) {
    v2 += p.vel[i] * p.vel[i];
  }
  return 0.5 * p.mass * v2;
}

export function stepParticle(p: Particle, dt: number): Particle {
  const pos: number[] = [];
  const vel: number[] = [];
  for (let i = 0; i < p.pos.length; i++) {
    const a = -p.pos[i] / p.mass;
    vel.push(p.vel[i] + dt * a);
    pos.push(p.pos[i] + dt * vel[i]);
  }
  return { pos, vel, mass: p.mass };
}

export function polarToCart(r: number, theta: number): Point {
  return { x: r * Math.cos(theta), y: r * Math.sin(theta) };
}

export function rotateTuple(v: [number, number], angle: number): [number, number] {
  const [x, y] = v;
  const c = Math.cos(angle);
  const s = Math.sin(angle);
  return [c * x - s * y, s * x + c * y];
}

export function dampedState(x0: number, v0: number, c: number): number {
  const s = { x: x0, v: v0, t: 0 };
  for (let i = 0; i < 10; i++) {
    s.v += 0.1 * (-s.x - c * s.v);
    s.x += 0.1 * s.v;
    s.t += 0.1;
  }
  return s.x * s.x + s.v * s.v;
}

export function statsOf(xs: number[]): Stats {
  let m = 0;
  for (const x of xs) m += x;
  m /= xs.length;
  let v = 0;
  for (const x of xs) v += (x - m) * (x - m);
  return { mean: m, variance: v / (xs.length - 1) };
}

export function lineFit(xs: number[], ys: number[]): { slope: number; intercept: number } {
  const n = xs.length;
  let sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (let i = 0; i < n; i++) {
    sx += xs[i];
    sy += ys[i];
    sxx += xs[i] * xs[i];
    sxy += xs[i] * ys[i];
  }
  const slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  return { slope, intercept: (sy - slope * sx) / n };
}

export function nestedConfig(cfg: { scale: number; offset: Point; weights: number[] }, x: number): number {
  const { scale, offset } = cfg;
  let s = 0;
  for (let i = 0; i < cfg.weights.length; i++) {
    s += cfg.weights[i] * Math.pow(x - offset.x, i);
  }
  return scale * s + offset.y;
}

export interface Polygon {
  xs: number[];
  ys: number[];
}

export const centroid = (poly: Polygon): Point => {
  let cx = 0;
  let cy = 0;
  for (let i = 0; i < poly.xs.length; i++) {
    cx += poly.xs[i];
    cy += poly.ys[i] * poly.ys[i];
  }
  return { x: cx / poly.xs.length, y: cy / poly.ys.length };
};

export function triangleTupleArea(a: [number, number], b: [number, number], c: [number, number]): number {
  const ux = b[0] - a[0];
  const uy = b[1] - a[1];
  const vx = c[0] - a[0];
  const vy = c[1] - a[1];
  return 0.5 * (ux * vy - uy * vx);
}
