// Hand-written gmm gradient (benchmark baseline). Same O(N K D^2) cost as the objective,
// one pass over the data; all scratch lives in a workspace allocated once per problem size.
//
// With y = x_i - mu_k, z = Q_k y, beta_ik = alpha_k + sum_j q_kj - |z|^2 / 2 and
// r_ik = softmax_k(beta_i.):
//   dF/dalpha_k = sum_i r_ik - N softmax(alpha)_k
//   dF/dmu_k    = sum_i r_ik Q_k^T z
//   dF/dq_kj    = sum_i r_ik (1 - z_j exp(q_kj) y_j)  - gamma^2 exp(2 q_kj) + m
//   dF/dl_k[t]  = -sum_i r_ik z_r y_c  (t <-> row r, column c)  - gamma^2 l_k[t]

import { logMultiGamma } from './objective.js';

export interface GmmGradient {
  alpha: Float64Array; // [K]
  mu: Float64Array[]; // [K][D]
  q: Float64Array[]; // [K][D]
  l: Float64Array[]; // [K][D(D-1)/2]
}

export interface GmmWorkspace {
  d: number;
  k: number;
  expQ: Float64Array; // [K*D]
  sumQ: Float64Array; // [K]
  y: Float64Array; // [K*D]  x_i - mu_k for every k
  z: Float64Array; // [K*D]  Q_k y
  beta: Float64Array; // [K]
  grad: GmmGradient;
}

export function makeGmmWorkspace(d: number, k: number): GmmWorkspace {
  const nl = (d * (d - 1)) / 2;
  const rows = (len: number): Float64Array[] => Array.from({ length: k }, () => new Float64Array(len));
  return {
    d,
    k,
    expQ: new Float64Array(k * d),
    sumQ: new Float64Array(k),
    y: new Float64Array(k * d),
    z: new Float64Array(k * d),
    beta: new Float64Array(k),
    grad: { alpha: new Float64Array(k), mu: rows(d), q: rows(d), l: rows(nl) },
  };
}

/**
 * Computes the gmm objective and its gradient with respect to alpha, mu, q, l.
 * The gradient is written into `ws.grad` (overwritten); the objective value is returned.
 */
export function gmmObjectiveGradient(
  alpha: number[],
  mu: number[][],
  q: number[][],
  l: number[][],
  x: number[][],
  m: number,
  gamma: number,
  ws: GmmWorkspace,
): number {
  const k = alpha.length;
  const n = x.length;
  const d = x[0].length;
  if (ws.d !== d || ws.k !== k) throw new Error('gmm: workspace size mismatch');
  const { expQ, sumQ, y, z, beta } = ws;
  const gAlpha = ws.grad.alpha;
  const gMu = ws.grad.mu;
  const gQ = ws.grad.q;
  const gL = ws.grad.l;

  for (let ik = 0; ik < k; ik++) {
    let s = 0;
    const qk = q[ik];
    for (let j = 0; j < d; j++) {
      s += qk[j];
      expQ[ik * d + j] = Math.exp(qk[j]);
    }
    sumQ[ik] = s;
    gAlpha[ik] = 0;
    gMu[ik].fill(0);
    gQ[ik].fill(0);
    gL[ik].fill(0);
  }

  let slse = 0;
  for (let i = 0; i < n; i++) {
    const xi = x[i];
    // forward: y, z, beta for every component
    let bmax = -Infinity;
    for (let ik = 0; ik < k; ik++) {
      const muk = mu[ik];
      const lk = l[ik];
      const o = ik * d;
      for (let j = 0; j < d; j++) {
        const yj = xi[j] - muk[j];
        y[o + j] = yj;
        z[o + j] = expQ[o + j] * yj;
      }
      let t = 0;
      for (let c = 0; c < d; c++) {
        const yc = y[o + c];
        for (let r = c + 1; r < d; r++) {
          z[o + r] += lk[t] * yc;
          t++;
        }
      }
      let sq = 0;
      for (let j = 0; j < d; j++) sq += z[o + j] * z[o + j];
      const b = alpha[ik] + sumQ[ik] - 0.5 * sq;
      beta[ik] = b;
      if (b > bmax) bmax = b;
    }
    let sum = 0;
    for (let ik = 0; ik < k; ik++) {
      const e = Math.exp(beta[ik] - bmax);
      beta[ik] = e; // reuse as unnormalised responsibility
      sum += e;
    }
    slse += bmax + Math.log(sum);
    const inv = 1 / sum;

    // backward: accumulate r_ik-weighted contributions
    for (let ik = 0; ik < k; ik++) {
      const r = beta[ik] * inv;
      gAlpha[ik] += r;
      const o = ik * d;
      const lk = l[ik];
      const gmu = gMu[ik];
      const gq = gQ[ik];
      const gl = gL[ik];
      // diagonal part
      for (let j = 0; j < d; j++) {
        const zj = z[o + j];
        const ez = expQ[o + j] * zj;
        gmu[j] += r * ez; // diagonal of Q^T z
        gq[j] += r * (1 - ez * y[o + j]);
      }
      // strictly-lower part: (Q^T z)_c += L_rc z_r ; dbeta/dL_rc = -z_r y_c
      let t = 0;
      for (let c = 0; c < d; c++) {
        const yc = y[o + c];
        let acc = 0;
        for (let rr = c + 1; rr < d; rr++) {
          const zr = z[o + rr];
          acc += lk[t] * zr;
          gl[t] -= r * zr * yc;
          t++;
        }
        gmu[c] += r * acc;
      }
    }
  }

  // -N lse(alpha)
  let amax = alpha[0];
  for (let ik = 1; ik < k; ik++) if (alpha[ik] > amax) amax = alpha[ik];
  let asum = 0;
  for (let ik = 0; ik < k; ik++) asum += Math.exp(alpha[ik] - amax);
  const lseAlpha = amax + Math.log(asum);
  for (let ik = 0; ik < k; ik++) gAlpha[ik] -= (n * Math.exp(alpha[ik] - amax)) / asum;

  // Wishart prior
  const nu = d + m + 1;
  const g2 = gamma * gamma;
  let prior = k * (nu * d * (Math.log(gamma) - 0.5 * Math.log(2)) - logMultiGamma(0.5 * nu, d));
  for (let ik = 0; ik < k; ik++) {
    let frob = 0;
    const gq = gQ[ik];
    const o = ik * d;
    for (let j = 0; j < d; j++) {
      const e2 = expQ[o + j] * expQ[o + j];
      frob += e2;
      gq[j] += -g2 * e2 + m;
    }
    const lk = l[ik];
    const gl = gL[ik];
    for (let t = 0; t < lk.length; t++) {
      frob += lk[t] * lk[t];
      gl[t] -= g2 * lk[t];
    }
    prior += -0.5 * g2 * frob + m * sumQ[ik];
  }

  return slse - n * lseAlpha - 0.5 * n * d * Math.log(2 * Math.PI) + prior;
}
