// Small physics engine code.

class Vec {
  constructor(public x = 0, public y = 0) {}
  add(o: Vec): Vec { return new Vec(this.x + o.x, this.y + o.y); }
  sub(o: Vec): Vec { return new Vec(this.x - o.x, this.y - o.y); }
  scale(k: number): Vec { return new Vec(this.x * k, this.y * k); }
  get length(): number { return Math.hypot(this.x, this.y); }
  static dot(a: Vec, b: Vec): number { return a.x * b.x + a.y * b.y; }
}

class Body {
  pos: Vec;
  vel: Vec;
  constructor(public mass: number, x: number, y: number, vx = 0, vy = 0) {
    this.pos = new Vec(x, y);
    this.vel = new Vec(vx, vy);
  }
  kinetic(): number { return 0.5 * this.mass * Vec.dot(this.vel, this.vel); }
}

const G = 1;

/** n-body leapfrog step; returns total energy after `steps` steps. */
export function nbodyEnergy(masses: number[], xs: number[], ys: number[], dt = 0.01, steps = 10): number {
  const bodies = masses.map((m, i) => new Body(m, xs[i], ys[i]));
  for (let s = 0; s < steps; s++) {
    for (const a of bodies) {
      let acc = new Vec();
      for (const b of bodies) {
        if (a === b) continue;
        const d = b.pos.sub(a.pos);
        const r = d.length + 0.1;
        acc = acc.add(d.scale((G * b.mass) / (r * r * r)));
      }
      a.vel = a.vel.add(acc.scale(dt));
    }
    bodies.forEach((b) => { b.pos = b.pos.add(b.vel.scale(dt)); });
  }
  let e = 0;
  for (let i = 0; i < bodies.length; i++) {
    e += bodies[i].kinetic();
    for (let j = i + 1; j < bodies.length; j++) {
      e -= (G * bodies[i].mass * bodies[j].mass) / (bodies[i].pos.sub(bodies[j].pos).length + 0.1);
    }
  }
  return e;
}

interface Particle { x: number; v: number; m: number }
interface Spring { a: number; b: number; k: number; rest: number }

/** Spring-mass chain with objects, semi-implicit Euler. */
export function springChain(particles: Particle[], springs: Spring[], dt = 0.02, steps = 20): number {
  const ps = particles.map((p) => ({ ...p }));
  for (let s = 0; s < steps; s++) {
    const forces = ps.map(() => 0);
    for (const { a, b, k, rest } of springs) {
      const stretch = ps[b].x - ps[a].x - rest;
      forces[a] += k * stretch;
      forces[b] -= k * stretch;
    }
    ps.forEach((p, i) => {
      p.v += (forces[i] / p.m) * dt;
      p.x += p.v * dt;
    });
  }
  return ps[ps.length - 1].x;
}

/** Projectile with quadratic drag, range reached when y crosses 0. */
export function projectileRange(speed: number, angle: number, drag = 0.05): number {
  let x = 0, y = 0;
  let vx = speed * Math.cos(angle), vy = speed * Math.sin(angle);
  const dt = 0.01, g = 9.81;
  let steps = 0;
  while (y >= 0 && steps < 10000) {
    const v = Math.sqrt(vx * vx + vy * vy);
    vx -= drag * v * vx * dt;
    vy -= (g + drag * v * vy) * dt;
    x += vx * dt;
    y += vy * dt;
    steps++;
  }
  return x;
}

/** Pendulum with a state object updated in place. */
export function pendulum(theta0: number, length: number, { g = 9.81, dt = 0.01, steps = 100 } = {}): number {
  const state = { theta: theta0, omega: 0 };
  for (let i = 0; i < steps; i++) {
    state.omega -= (g / length) * Math.sin(state.theta) * dt;
    state.theta += state.omega * dt;
  }
  return state.theta;
}
