// Benchmark workload: the GMM objective of evals/gmm/objective.ts written with classes (compiler input).
//
// Same mathematics and the same operation order as the loop version: a `Gaussian` holds one
// component (its log-weight, mean and the packed Cholesky-like factor Q) and evaluates its log-density
// term at a point; a `Mixture` holds the components and evaluates the log-likelihood of a point and the
// Wishart prior. The head `gmmObjective` has the loop version's signature.
import { logMultiGamma, logSumExp } from '../../evals/gmm/objective.js';

/** exp of each element, as a fresh array */
function expAll(v: number[]): Float64Array {
  const out = new Float64Array(v.length);
  for (let j = 0; j < v.length; j++) out[j] = Math.exp(v[j]);
  return out;
}

export class Gaussian {
  /** exp of the diagonal of Q */
  readonly scale: Float64Array;
  /** log det Q = sum of the log-diagonal */
  readonly logDetQ: number;
  /** scratch for x - mu and Q (x - mu), reused by every call of logTerm */
  private readonly centered: Float64Array;
  private readonly whitened: Float64Array;

  constructor(
    readonly logWeight: number,
    readonly mean: number[],
    readonly logDiag: number[],
    readonly lower: number[],
  ) {
    const d = mean.length;
    this.scale = expAll(logDiag);
    let s = 0;
    for (let j = 0; j < d; j++) s += logDiag[j];
    this.logDetQ = s;
    this.centered = new Float64Array(d);
    this.whitened = new Float64Array(d);
  }

  /** log(weight) + log det Q - |Q (x - mu)|^2 / 2 */
  logTerm(x: number[]): number {
    const d = this.mean.length;
    const diff = this.centered;
    const z = this.whitened;
    for (let j = 0; j < d; j++) {
      diff[j] = x[j] - this.mean[j];
      z[j] = this.scale[j] * diff[j];
    }
    // strictly-lower part of Q, packed column by column
    let t = 0;
    for (let c = 0; c < d; c++) {
      for (let r = c + 1; r < d; r++) {
        z[r] += this.lower[t] * diff[c];
        t++;
      }
    }
    let sqnorm = 0;
    for (let j = 0; j < d; j++) sqnorm += z[j] * z[j];
    return this.logWeight + this.logDetQ - 0.5 * sqnorm;
  }

  /** the squared Frobenius norm of Q */
  frobenius(): number {
    let f = 0;
    for (let j = 0; j < this.scale.length; j++) f += this.scale[j] * this.scale[j];
    for (let t = 0; t < this.lower.length; t++) f += this.lower[t] * this.lower[t];
    return f;
  }
}

export class Mixture {
  readonly components: Gaussian[] = [];
  /** log-weights before normalisation */
  readonly alpha: number[];

  constructor(alpha: number[], mu: number[][], q: number[][], l: number[][]) {
    this.alpha = alpha;
    for (let k = 0; k < alpha.length; k++) {
      this.components.push(new Gaussian(alpha[k], mu[k], q[k], l[k]));
    }
  }

  /** log sum_k w_k N(x; mu_k, Q_k) up to the normalisation of the weights and the 2 pi constant */
  logLikelihood(x: number[]): number {
    const terms = this.components.map((g) => g.logTerm(x));
    return logSumExp(terms);
  }

  /** log of the Wishart prior W(Q^T Q; gamma^-2 I, D + m + 1), summed over the components */
  logPrior(m: number, gamma: number): number {
    const d = this.components[0].mean.length;
    const nu = d + m + 1;
    const c = nu * d * (Math.log(gamma) - 0.5 * Math.log(2)) - logMultiGamma(0.5 * nu, d);
    let out = 0;
    for (const g of this.components) {
      out += -0.5 * gamma * gamma * g.frobenius() + m * g.logDetQ;
    }
    return out + this.components.length * c;
  }
}

export function gmmClassObjective(
  alpha: number[],
  mu: number[][],
  q: number[][],
  l: number[][],
  x: number[][],
  m: number,
  gamma: number,
): number {
  const mixture = new Mixture(alpha, mu, q, l);
  const n = x.length;
  const d = x[0].length;
  let slse = 0;
  for (let i = 0; i < n; i++) {
    slse += mixture.logLikelihood(x[i]);
  }
  const constant = -0.5 * n * d * Math.log(2 * Math.PI);
  return slse - n * logSumExp(alpha) + constant + mixture.logPrior(m, gamma);
}
