// Benchmark workload 2: a scalar-loop-heavy explicit time-stepping simulation (compiler input).
//
// n particles in the plane, pairwise Morse forces (sqrt, exp), a time-dependent external field
// (sin, cos) and linear damping, advanced with symplectic Euler for `steps` steps of size h.
// The result is a scalar loss of the final state. Per step: n(n-1)/2 pair interactions of ~25
// scalar operations plus ~20 per particle, i.e. ~1.3e3 operations per step for n = 10.
//
// Independents: x0, y0 (initial positions), vx0, vy0 (initial velocities) and
// p = [stiffness, rest length, damping, field strength]. `steps` and `h` are passive.

export function particleSim(
  x0: number[],
  y0: number[],
  vx0: number[],
  vy0: number[],
  p: number[],
  steps: number,
  h: number,
): number {
  const n = x0.length;
  const x = new Float64Array(n);
  const y = new Float64Array(n);
  const vx = new Float64Array(n);
  const vy = new Float64Array(n);
  const fx = new Float64Array(n);
  const fy = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x[i] = x0[i];
    y[i] = y0[i];
    vx[i] = vx0[i];
    vy[i] = vy0[i];
  }
  const k = p[0];
  const r0 = p[1];
  const damp = p[2];
  const w = p[3];
  for (let s = 0; s < steps; s++) {
    const t = s * h;
    // external field and damping
    for (let i = 0; i < n; i++) {
      fx[i] = -damp * vx[i] + w * Math.sin(y[i] + t);
      fy[i] = -damp * vy[i] - w * Math.cos(x[i] - t);
    }
    // pairwise Morse forces: V(r) = k (1 - exp(-(r - r0)))^2
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++) {
        const dx = x[j] - x[i];
        const dy = y[j] - y[i];
        const r = Math.sqrt(dx * dx + dy * dy + 1e-3);
        const e = Math.exp(r0 - r);
        const f = (2 * k * (e * e - e)) / r;
        fx[i] -= f * dx;
        fy[i] -= f * dy;
        fx[j] += f * dx;
        fy[j] += f * dy;
      }
    }
    // symplectic Euler
    for (let i = 0; i < n; i++) {
      vx[i] += h * fx[i];
      vy[i] += h * fy[i];
      x[i] += h * vx[i];
      y[i] += h * vy[i];
    }
  }
  let loss = 0;
  for (let i = 0; i < n; i++) {
    loss += 0.5 * (vx[i] * vx[i] + vy[i] * vy[i]) + 0.01 * (x[i] * x[i] + y[i] * y[i]);
  }
  return loss;
}
