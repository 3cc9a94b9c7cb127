/**
 * Small models written the way ML code is: a one-hidden-layer network whose per-sample arrays are
 * built by push inside the loop over samples (a fused reduction whose inner loops run over them).
 */

const LABELS = [0, 2, 1, 1, 0];

function softplus(z: number): number {
  return z > 0 ? z + Math.log1p(Math.exp(-z)) : Math.log1p(Math.exp(z));
}

export function mlpLoss(W1: number[][], b1: number[], W2: number[][], b2: number[], X: number[][], lambda: number): number {
  let total = 0;
  for (let s = 0; s < X.length; s++) {
    const x = X[s];
    const hidden: number[] = [];
    for (let j = 0; j < W1.length; j++) {
      let z = b1[j];
      for (let i = 0; i < x.length; i++) z += W1[j][i] * x[i];
      hidden.push(Math.tanh(z));
    }
    const logits: number[] = [];
    for (let c = 0; c < W2.length; c++) {
      let z = b2[c];
      for (let j = 0; j < hidden.length; j++) z += W2[c][j] * hidden[j];
      logits.push(z);
    }
    const m = Math.max(...logits);
    let se = 0;
    for (const l of logits) se += Math.exp(l - m);
    total += m + Math.log(se) - logits[LABELS[s % LABELS.length]];
  }
  let reg = 0;
  for (const row of W1) for (const w of row) reg += w * w;
  reg += softplus(b2[0]);
  return total / X.length + lambda * reg;
}
