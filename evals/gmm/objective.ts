// gmm: log-posterior of a Gaussian mixture with a Wishart prior on each precision matrix.
//   objective = gmmObjective(alpha, mu, q, l, x, m, gamma)
//   jacobian  = d gmmObjective / d (alpha, mu, q, l)  (reverse mode; x, m, gamma are passive)
//
// Shapes: alpha[K], mu[K][D], q[K][D], l[K][D(D-1)/2], x[N][D]; D, K, N from the array lengths.
// Q_k is lower triangular with diagonal exp(q[k][j]) and strictly-lower part l[k] packed
// column by column: column 0 rows 1..D-1, then column 1 rows 2..D-1, ...

/** log Gamma(x) for x > 0 (Lanczos, g = 7, 9 terms; relative error ~1e-15). */
export function logGamma(x: number): number {
  if (x < 0.5) {
    // reflection formula (not reached by the eval: arguments are >= 1)
    return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
  }
  const z = x - 1;
  let a = 0.99999999999980993;
  a += 676.5203681218851 / (z + 1);
  a += -1259.1392167224028 / (z + 2);
  a += 771.32342877765313 / (z + 3);
  a += -176.61502916214059 / (z + 4);
  a += 12.507343278686905 / (z + 5);
  a += -0.13857109526572012 / (z + 6);
  a += 9.9843695780195716e-6 / (z + 7);
  a += 1.5056327351493116e-7 / (z + 8);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Multivariate log-gamma: log Gamma_d(a) = d(d-1)/4 log(pi) + sum_{j=1..d} log Gamma(a + (1-j)/2). */
export function logMultiGamma(a: number, d: number): number {
  let out = 0.25 * d * (d - 1) * Math.log(Math.PI);
  for (let j = 1; j <= d; j++) {
    out += logGamma(a + 0.5 * (1 - j));
  }
  return out;
}

/** max-shifted log-sum-exp */
export function logSumExp(v: number[]): number {
  const n = v.length;
  let mx = v[0];
  for (let i = 1; i < n; i++) {
    if (v[i] > mx) mx = v[i];
  }
  let sum = 0;
  for (let i = 0; i < n; i++) {
    sum += Math.exp(v[i] - mx);
  }
  return mx + Math.log(sum);
}

/** Log of the Wishart prior W(Q^T Q; gamma^-2 I, D + m + 1), summed over components. */
export function logWishartPrior(q: number[][], l: number[][], m: number, gamma: number): number {
  const k = q.length;
  const d = q[0].length;
  const nu = d + m + 1;
  const c = nu * d * (Math.log(gamma) - 0.5 * Math.log(2)) - logMultiGamma(0.5 * nu, d);
  let out = 0;
  for (let ik = 0; ik < k; ik++) {
    let frobenius = 0;
    let sumQ = 0;
    for (let j = 0; j < d; j++) {
      const e = Math.exp(q[ik][j]);
      frobenius += e * e;
      sumQ += q[ik][j];
    }
    const li = l[ik];
    for (let t = 0; t < li.length; t++) {
      frobenius += li[t] * li[t];
    }
    out += -0.5 * gamma * gamma * frobenius + m * sumQ;
  }
  return out + k * c;
}

export function gmmObjective(
  alpha: number[],
  mu: number[][],
  q: number[][],
  l: number[][],
  x: number[][],
  m: number,
  gamma: number,
): number {
  const k = alpha.length;
  const n = x.length;
  const d = x[0].length;

  // per-component constants: sum_j q[k][j] and exp(q[k][j])
  const sumQ = new Float64Array(k);
  const expQ = new Float64Array(k * d);
  for (let ik = 0; ik < k; ik++) {
    let s = 0;
    for (let j = 0; j < d; j++) {
      s += q[ik][j];
      expQ[ik * d + j] = Math.exp(q[ik][j]);
    }
    sumQ[ik] = s;
  }

  const diff = new Float64Array(d); // x_i - mu_k
  const qdiff = new Float64Array(d); // Q_k (x_i - mu_k)
  const beta: number[] = new Array<number>(k).fill(0);
  let slse = 0;
  for (let i = 0; i < n; i++) {
    const xi = x[i];
    for (let ik = 0; ik < k; ik++) {
      const muk = mu[ik];
      const lk = l[ik];
      for (let j = 0; j < d; j++) {
        diff[j] = xi[j] - muk[j];
        qdiff[j] = expQ[ik * d + j] * diff[j];
      }
      // strictly-lower part, column by column
      let t = 0;
      for (let c = 0; c < d; c++) {
        for (let r = c + 1; r < d; r++) {
          qdiff[r] += lk[t] * diff[c];
          t++;
        }
      }
      let sqnorm = 0;
      for (let j = 0; j < d; j++) {
        sqnorm += qdiff[j] * qdiff[j];
      }
      beta[ik] = alpha[ik] + sumQ[ik] - 0.5 * sqnorm;
    }
    slse += logSumExp(beta);
  }

  const lseAlpha = logSumExp(alpha);
  const constant = -0.5 * n * d * Math.log(2 * Math.PI);
  return slse - n * lseAlpha + constant + logWishartPrior(q, l, m, gamma);
}
