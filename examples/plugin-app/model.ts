// A logistic-regression model: the negative log-likelihood of labelled points, with an L2 penalty.
// The example app (main.ts) imports its gradient from `./model.ts?tsad=loss`, made at build time by
// the bundler plugin (tsad/plugin): the app ships the generated code, not the compiler.

/** log(1 + e^t), written to stay finite for large |t| */
function softplus(t: number): number {
  return t > 0 ? t + Math.log1p(Math.exp(-t)) : Math.log1p(Math.exp(t));
}

/** mean negative log-likelihood of labels y (0 or 1) at points xs, plus lambda/2 |w|² */
export function loss(w: number[], b: number, xs: number[][], y: number[], lambda: number): number {
  let total = 0;
  for (let i = 0; i < xs.length; i++) {
    let z = b;
    for (let j = 0; j < w.length; j++) z += w[j] * xs[i][j];
    // -log σ(z) for a positive label, -log(1 - σ(z)) for a negative one
    total += y[i] === 1 ? softplus(-z) : softplus(z);
  }
  let penalty = 0;
  for (const wj of w) penalty += wj * wj;
  return total / xs.length + 0.5 * lambda * penalty;
}
