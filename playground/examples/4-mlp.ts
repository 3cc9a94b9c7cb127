// MLP: a two-layer tanh network fitted to XOR, mean squared error
const XS = [[0, 0], [0, 1], [1, 0], [1, 1]];
const YS = [0, 1, 1, 0];

function forward(W1: number[][], b1: number[], W2: number[], b2: number, x: number[]): number {
  let y = b2;
  for (let j = 0; j < W1.length; j++) {
    const h = Math.tanh(W1[j][0] * x[0] + W1[j][1] * x[1] + b1[j]);
    y += W2[j] * h;
  }
  return y;
}

// W1: hidden × 2 weights, b1: hidden biases, W2: output weights, b2: output bias
export function mlpLoss(W1: number[][], b1: number[], W2: number[], b2: number): number {
  let loss = 0;
  for (let n = 0; n < XS.length; n++) {
    const e = forward(W1, b1, W2, b2, XS[n]) - YS[n];
    loss += e * e;
  }
  return loss / XS.length;
}
