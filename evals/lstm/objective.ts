// lstm: loss of a stacked LSTM with diagonal weights on a bit-encoded character sequence.
//   objective = lstmObjective(mainParams, extraParams, state, sequence)
//   jacobian  = d lstmObjective / d (mainParams, extraParams), flattened row by row,
//               mainParams first (reverse mode over the c-1 step time loop; state and
//               sequence are passive)
//
// Shapes: mainParams[2l][4b] (row 2i: weights, row 2i+1: biases of layer i; gate blocks
// forget | input | output | candidate), extraParams[3][b] (input scale, output scale,
// output bias), state[2l][b] (row 2i: hidden, row 2i+1: cell of layer i), sequence[c][b].
// The state is copied first: the input must not be modified.

export function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

export function lstmObjective(
  mainParams: number[][],
  extraParams: number[][],
  state: number[][],
  sequence: number[][],
): number {
  const l = mainParams.length / 2;
  const b = sequence[0].length;
  const c = sequence.length;

  // working copy of the state: hidden[i*b + j], cell[i*b + j]
  const hidden = new Float64Array(l * b);
  const cell = new Float64Array(l * b);
  for (let i = 0; i < l; i++) {
    for (let j = 0; j < b; j++) {
      hidden[i * b + j] = state[2 * i][j];
      cell[i * b + j] = state[2 * i + 1][j];
    }
  }

  const wIn = extraParams[0];
  const wOut = extraParams[1];
  const bOut = extraParams[2];
  const x = new Float64Array(b); // input of the current layer, then the last hidden state
  const ypred = new Float64Array(b);

  let total = 0;
  for (let t = 0; t < c - 1; t++) {
    const input = sequence[t];
    for (let j = 0; j < b; j++) {
      x[j] = input[j] * wIn[j];
    }
    for (let i = 0; i < l; i++) {
      const w = mainParams[2 * i];
      const bias = mainParams[2 * i + 1];
      for (let j = 0; j < b; j++) {
        const h = hidden[i * b + j];
        const forget = sigmoid(x[j] * w[j] + bias[j]);
        const ingate = sigmoid(h * w[b + j] + bias[b + j]);
        const outgate = sigmoid(x[j] * w[2 * b + j] + bias[2 * b + j]);
        const change = Math.tanh(h * w[3 * b + j] + bias[3 * b + j]);
        const s = cell[i * b + j] * forget + ingate * change;
        cell[i * b + j] = s;
        const hNew = outgate * Math.tanh(s);
        hidden[i * b + j] = hNew;
        x[j] = hNew; // input of the next layer
      }
    }
    let sumExp = 0;
    for (let j = 0; j < b; j++) {
      ypred[j] = x[j] * wOut[j] + bOut[j];
      sumExp += Math.exp(ypred[j]);
    }
    // the eval's log-sum-exp: +2 inside the log, no max shift
    const lse = Math.log(sumExp + 2);
    const target = sequence[t + 1];
    for (let j = 0; j < b; j++) {
      total += target[j] * (ypred[j] - lse);
    }
  }
  return -total / ((c - 1) * b);
}
