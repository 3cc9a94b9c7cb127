// Benchmark workload: the GMM objective of evals/gmm/objective.ts written with map/reduce and arrow
// callbacks over arrays, as a JavaScript programmer would (compiler input).
//
// Same mathematics and summation order as the loop version. The strictly-lower part of each Q_k,
// packed column by column in l[k], is unpacked once into ragged rows (row r holds Q[r][0..r-1]) so that
// each component of Q (x - mu) is one reduce over a row.
import { logMultiGamma } from '../../evals/gmm/objective.js';

const sum = (v: number[]): number => v.reduce((s, e) => s + e, 0);

/** max-shifted log-sum-exp */
const lse = (v: number[]): number => {
  const mx = v.reduce((a, e) => (e > a ? e : a));
  return mx + Math.log(v.reduce((s, e) => s + Math.exp(e - mx), 0));
};

export function gmmFunctionalObjective(
  alpha: number[],
  mu: number[][],
  q: number[][],
  l: number[][],
  x: number[][],
  m: number,
  gamma: number,
): number {
  const n = x.length;
  const d = x[0].length;
  const scale = q.map((qk) => qk.map((v) => Math.exp(v)));
  const logDet = q.map((qk) => sum(qk));
  // rows[k][r][c] = Q_k[r][c] for c < r; column c of the packed l[k] starts at c (2d - c - 1) / 2
  const rows = l.map((lk) =>
    scale[0].map((_, r) => {
      const row = Array.from({ length: r }, (_, c) => lk[(c * (2 * d - c - 1)) / 2 + r - c - 1]);
      return row;
    }),
  );

  const slse = x.reduce((total, xi) => {
    const beta = alpha.map((a, k) => {
      const diff = xi.map((v, j) => v - mu[k][j]);
      const sqnorm = rows[k].reduce((s, row, r) => {
        const z = row.reduce((acc, qrc, c) => acc + qrc * diff[c], scale[k][r] * diff[r]);
        return s + z * z;
      }, 0);
      return a + logDet[k] - 0.5 * sqnorm;
    });
    return total + lse(beta);
  }, 0);

  // Wishart prior
  const nu = d + m + 1;
  const c = nu * d * (Math.log(gamma) - 0.5 * Math.log(2)) - logMultiGamma(0.5 * nu, d);
  const prior = q.reduce((out, qk, k) => {
    const frobenius = scale[k].reduce((f, e) => f + e * e, 0) + l[k].reduce((f, e) => f + e * e, 0);
    return out - 0.5 * gamma * gamma * frobenius + m * logDet[k];
  }, 0);

  const constant = -0.5 * n * d * Math.log(2 * Math.PI);
  return slse - n * lse(alpha) + constant + prior + q.length * c;
}
