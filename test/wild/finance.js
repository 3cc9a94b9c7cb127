// Finance calculators.

/**
 * Abramowitz-Stegun erf.
 * @param {number} x
 */
function erf(x) {
  const sign = x < 0 ? -1 : 1;
  x = Math.abs(x);
  const t = 1 / (1 + 0.3275911 * x);
  const y = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return sign * y;
}

/** @param {number} x */
const normCdf = (x) => 0.5 * (1 + erf(x / Math.SQRT2));

/**
 * Black-Scholes price of a European option.
 * @param {number} S
 * @param {number} K
 * @param {number} T
 * @param {number} r
 * @param {number} sigma
 * @param {'call' | 'put'} [type]
 * @returns {number}
 */
export function blackScholes(S, K, T, r, sigma, type = 'call') {
  const d1 = (Math.log(S / K) + (r + sigma * sigma / 2) * T) / (sigma * Math.sqrt(T));
  const d2 = d1 - sigma * Math.sqrt(T);
  if (type === 'call') return S * normCdf(d1) - K * Math.exp(-r * T) * normCdf(d2);
  return K * Math.exp(-r * T) * normCdf(-d2) - S * normCdf(-d1);
}

/**
 * Net present value.
 * @param {number} rate
 * @param {number[]} cashflows
 * @returns {number}
 */
export function npv(rate, cashflows) {
  return cashflows.reduce((acc, cf, t) => acc + cf / Math.pow(1 + rate, t), 0);
}

/**
 * IRR by Newton's method on NPV.
 * @param {number[]} cashflows
 * @param {number} [guess]
 * @returns {number}
 */
export function irr(cashflows, guess = 0.1) {
  let rate = guess;
  for (let i = 0; i < 100; i++) {
    let f = 0, df = 0;
    cashflows.forEach((cf, t) => {
      f += cf / Math.pow(1 + rate, t);
      df -= (t * cf) / Math.pow(1 + rate, t + 1);
    });
    const next = rate - f / df;
    if (Math.abs(next - rate) < 1e-12) { rate = next; break; }
    rate = next;
  }
  return rate;
}

/**
 * Loan payment (PMT).
 * @param {number} principal
 * @param {number} annualRate
 * @param {number} years
 * @param {number} [periodsPerYear]
 */
export function loanPayment(principal, annualRate, years, periodsPerYear = 12) {
  const r = annualRate / periodsPerYear;
  const n = years * periodsPerYear;
  if (r === 0) return principal / n;
  return (principal * r) / (1 - Math.pow(1 + r, -n));
}

/**
 * Bond price from yield.
 * @param {{face: number, coupon: number, years: number}} bond
 * @param {number} ytm
 */
export function bondPrice(bond, ytm) {
  const { face, coupon, years } = bond;
  let price = 0;
  for (let t = 1; t <= years; t++) price += (face * coupon) / (1 + ytm) ** t;
  return price + face / (1 + ytm) ** years;
}

/**
 * Portfolio variance w' Σ w.
 * @param {number[]} weights
 * @param {number[][]} cov
 */
export function portfolioVariance(weights, cov) {
  return weights.reduce((acc, wi, i) => acc + wi * cov[i].reduce((s, c, j) => s + c * weights[j], 0), 0);
}
