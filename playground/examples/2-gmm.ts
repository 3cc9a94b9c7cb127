// GMM: negative log-likelihood of a Gaussian mixture with diagonal covariances
function logsumexp(v: number[]): number {
  let m = -Infinity;
  for (const t of v) m = Math.max(m, t);
  let s = 0;
  for (const t of v) s += Math.exp(t - m);
  return m + Math.log(s);
}

// alphas: unnormalized log-weights (K); means, logSigmas: K × D; x: the data, N × D
export function gmmObjective(alphas: number[], means: number[][], logSigmas: number[][], x: number[][]): number {
  const K = alphas.length;
  const D = x[0].length;
  const logNorm = logsumexp(alphas);
  let total = 0;
  for (const xi of x) {
    const terms: number[] = [];
    for (let k = 0; k < K; k++) {
      let q = 0;
      let logDet = 0;
      for (let d = 0; d < D; d++) {
        const z = (xi[d] - means[k][d]) * Math.exp(-logSigmas[k][d]);
        q += z * z;
        logDet += logSigmas[k][d];
      }
      terms.push(alphas[k] - logDet - 0.5 * q);
    }
    total += logsumexp(terms) - logNorm;
  }
  return -total / x.length + 0.5 * D * Math.log(2 * Math.PI);
}
