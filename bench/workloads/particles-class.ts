// Benchmark workload: the particle simulation of particles.ts written with classes (compiler input).
//
// Same mathematics and operation order: each `Particle` holds its state and the force acting on it,
// with methods for the external field, the symplectic Euler step and its share of the loss; a
// `Simulation` holds the particles and the parameters and accumulates the pairwise Morse forces.
// The head `particleClassSim` has the loop version's signature.

export class Particle {
  fx = 0;
  fy = 0;

  constructor(
    public x: number,
    public y: number,
    public vx: number,
    public vy: number,
  ) {}

  /** damping and the time-dependent external field: resets the force */
  applyField(damp: number, w: number, t: number): void {
    this.fx = -damp * this.vx + w * Math.sin(this.y + t);
    this.fy = -damp * this.vy - w * Math.cos(this.x - t);
  }

  /** symplectic Euler */
  step(h: number): void {
    this.vx += h * this.fx;
    this.vy += h * this.fy;
    this.x += h * this.vx;
    this.y += h * this.vy;
  }

  get loss(): number {
    return 0.5 * (this.vx * this.vx + this.vy * this.vy) + 0.01 * (this.x * this.x + this.y * this.y);
  }
}

export class Simulation {
  readonly particles: Particle[] = [];

  constructor(
    readonly stiffness: number,
    readonly restLength: number,
    readonly damping: number,
    readonly field: number,
  ) {}

  add(p: Particle): void {
    this.particles.push(p);
  }

  /** the forces at time t: field and damping on each particle, then the Morse pair forces */
  computeForces(t: number): void {
    for (const a of this.particles) a.applyField(this.damping, this.field, t);
    const n = this.particles.length;
    for (let i = 0; i < n; i++) {
      const a = this.particles[i];
      for (let j = i + 1; j < n; j++) {
        const b = this.particles[j];
        // V(r) = k (1 - exp(-(r - r0)))^2
        const dx = b.x - a.x;
        const dy = b.y - a.y;
        const r = Math.sqrt(dx * dx + dy * dy + 1e-3);
        const e = Math.exp(this.restLength - r);
        const f = (2 * this.stiffness * (e * e - e)) / r;
        a.fx -= f * dx;
        a.fy -= f * dy;
        b.fx += f * dx;
        b.fy += f * dy;
      }
    }
  }

  advance(h: number): void {
    for (const a of this.particles) a.step(h);
  }

  get loss(): number {
    let total = 0;
    for (const a of this.particles) total += a.loss;
    return total;
  }
}

export function particleClassSim(
  x0: number[],
  y0: number[],
  vx0: number[],
  vy0: number[],
  p: number[],
  steps: number,
  h: number,
): number {
  const sim = new Simulation(p[0], p[1], p[2], p[3]);
  for (let i = 0; i < x0.length; i++) sim.add(new Particle(x0[i], y0[i], vx0[i], vy0[i]));
  for (let s = 0; s < steps; s++) {
    sim.computeForces(s * h);
    sim.advance(h);
  }
  return sim.loss;
}
