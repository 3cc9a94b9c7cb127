// Particles: a class-based particle system, springs to the origin and between neighbours, with drag
class Particle {
  constructor(public x: number, public y: number, public vx: number, public vy: number) {}

  push(fx: number, fy: number, dt: number): void {
    this.vx += dt * fx;
    this.vy += dt * fy;
  }

  move(dt: number, drag: number): void {
    this.vx *= 1 - drag * dt;
    this.vy *= 1 - drag * dt;
    this.x += dt * this.vx;
    this.y += dt * this.vy;
  }

  get kinetic(): number {
    return 0.5 * (this.vx * this.vx + this.vy * this.vy);
  }
}

class System {
  particles: Particle[] = [];

  constructor(public k: number, public drag: number) {}

  step(dt: number): void {
    const ps = this.particles;
    for (let i = 0; i < ps.length; i++) {
      let fx = -this.k * ps[i].x;
      let fy = -this.k * ps[i].y;
      if (i > 0) {
        fx += ps[i - 1].x - ps[i].x;
        fy += ps[i - 1].y - ps[i].y;
      }
      ps[i].push(fx, fy, dt);
    }
    for (const p of ps) p.move(dt, this.drag);
  }

  energy(): number {
    let e = 0;
    for (const p of this.particles) e += p.kinetic + 0.5 * this.k * (p.x * p.x + p.y * p.y);
    return e;
  }
}

// pos = [x0, y0, x1, y1, …]: the particles start there at rest; the energy left after 40 steps
export function simulate(pos: number[], k: number, drag: number): number {
  const sys = new System(k, drag);
  for (let i = 0; i + 1 < pos.length; i += 2) sys.particles.push(new Particle(pos[i], pos[i + 1], 0, 0));
  for (let s = 0; s < 40; s++) sys.step(0.05);
  return sys.energy();
}
