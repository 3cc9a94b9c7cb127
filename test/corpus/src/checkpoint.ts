/**
 * Time-stepping loops reversed by binomial checkpointing (`// $ad binomial-ckp s`): scalar, array,
 * object and flag state, a step that calls a function writing the state, a checkpointed loop inside a
 * callee called from a loop, and checkpointed loops nested in each other.
 */

export function eulerOscillator(x0: number, v0: number, k: number): number {
  let x = x0;
  let v = v0;
  const dt = 0.05;
  // $ad binomial-ckp 3
  for (let i = 0; i < 40; i++) {
    const a = -k * x - 0.1 * v * Math.abs(v);
    x += dt * v;
    v += dt * a;
  }
  return 0.5 * v * v + 0.5 * k * x * x;
}

function heatStep(u: Float64Array, tmp: Float64Array, c: number): void {
  const n = u.length;
  for (let j = 0; j < n; j++) {
    const left = j > 0 ? u[j - 1] : 0;
    const right = j < n - 1 ? u[j + 1] : 0;
    tmp[j] = u[j] + c * (left - 2 * u[j] + right) - 0.05 * u[j] * u[j] * u[j];
  }
  for (let j = 0; j < n; j++) u[j] = tmp[j];
}

export function heatRod(u0: Float64Array, c: number, steps: number): number {
  const u = Float64Array.from(u0);
  const tmp = new Float64Array(u0.length);
  let t = 0;
  // $ad binomial-ckp 4
  for (let s = 0; s < steps; s++) {
    heatStep(u, tmp, c);
    t += 0.1;
  }
  let e = 0;
  for (let j = 0; j < u.length; j++) e += u[j] * u[j] * (1 + 0.1 * t);
  return e;
}

interface Particle {
  x: number;
  y: number;
  vx: number;
  vy: number;
}

export function orbit(p: Particle, gm: number): number {
  const q: Particle = { x: p.x, y: p.y, vx: p.vx, vy: p.vy };
  let bounced = false;
  let hits = 0;
  // $ad binomial-ckp 5
  for (let i = 0; i < 25; i++) {
    const r2 = q.x * q.x + q.y * q.y;
    const r3 = r2 * Math.sqrt(r2);
    q.vx -= (0.02 * gm * q.x) / r3;
    q.vy -= (0.02 * gm * q.y) / r3;
    q.x += 0.02 * q.vx;
    q.y += 0.02 * q.vy;
    if (q.y < 0 && !bounced) {
      bounced = true;
      hits++;
      q.vy = -0.9 * q.vy;
    }
  }
  return q.x * q.x + 2 * q.y + hits;
}

function relax(a: number[], w: number, n: number): number {
  let s = 0;
  // $ad binomial-ckp 2
  for (let k = 0; k < n; k++) {
    for (let j = 1; j < a.length; j++) a[j] = a[j] + w * Math.sin(a[j - 1] - a[j]);
    s += a[a.length - 1];
  }
  return s;
}

export function relaxMany(a0: number[], w: number): number {
  const a = a0.slice();
  let total = 0;
  for (let r = 0; r < 3; r++) total += relax(a, w + 0.1 * r, 6);
  return total + a[0] * a[1];
}

export function nestedCheckpoints(x0: number, y0: number, h: number): number {
  let x = x0;
  let y = y0;
  // $ad binomial-ckp 3
  for (let outer = 0; outer < 8; outer++) {
    let z = x * 0.5;
    // $ad binomial-ckp 2
    for (let inner = 0; inner < 5; inner++) {
      z = z + h * Math.cos(z + y);
    }
    x = x + h * z;
    y = y - h * x * z;
  }
  return x * y;
}

export function rowLosses(m: number[][], w: number[], out: number[]): number {
  let total = 0;
  // $ad ii-loop
  for (let i = 0; i < m.length; i++) {
    const row = m[i];
    let s = 0;
    for (let j = 0; j < row.length; j++) s += Math.tanh(w[j] * row[j]);
    out[i] = s * s;
    total += out[i] * w[0];
  }
  return total;
}

export function scaleRows(m: number[][], c: number): number {
  let acc = 0;
  // $ad ii-loop
  for (let i = 0; i < m.length; i++) {
    for (let j = 0; j < m[i].length; j++) m[i][j] = Math.sin(c * m[i][j]) + m[i][j];
    acc += m[i][0] * m[i][1];
  }
  return acc;
}

/** Every step brings the row of largest first entry to the top by reference (a pivot), then relaxes. */
export function pivotingRelaxation(A: number[][], h: number): number {
  const n = A.length;
  // $ad binomial-ckp 3
  for (let t = 0; t < 10; t++) {
    let p = 0;
    for (let i = 1; i < n; i++) if (Math.abs(A[i][0]) > Math.abs(A[p][0])) p = i;
    const r = A[0];
    A[0] = A[p];
    A[p] = r;
    for (let i = 1; i < n; i++) {
      const f = (h * A[i][0]) / (1 + A[0][0] * A[0][0]);
      for (let j = 0; j < n; j++) A[i][j] -= f * A[0][j];
    }
    A[0][1] += h * Math.sin(A[n - 1][0]);
  }
  let s = 0;
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) s += (i + 1) * (j + 2) * A[i][j];
  return s;
}

/** Partial pivoting as a checkpointed call: the rows it swaps must come back in their places. */
// $ad checkpoint
function pivotColumn(A: number[][], k: number): void {
  let p = k;
  for (let i = k + 1; i < A.length; i++) if (Math.abs(A[i][k]) > Math.abs(A[p][k])) p = i;
  const t = A[k];
  A[k] = A[p];
  A[p] = t;
}

export function luDetCheckpointed(A0: number[][]): number {
  const n = A0.length;
  const A: number[][] = [];
  for (let i = 0; i < n; i++) A.push(A0[i].slice());
  let det = 1;
  for (let k = 0; k < n; k++) {
    const before = A[k][k];
    pivotColumn(A, k);
    if (A[k][k] !== before) det = -det;
    det *= A[k][k];
    for (let i = k + 1; i < n; i++) {
      const f = A[i][k] / A[k][k];
      for (let j = k; j < n; j++) A[i][j] -= f * A[k][j];
    }
  }
  return det;
}
