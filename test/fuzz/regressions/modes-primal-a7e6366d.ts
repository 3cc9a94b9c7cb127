// Shrunk by the fuzzer (npm run fuzz): modes-primal — primal values after f_b differ from the primal's
export interface P {
  u: number;
  v: number;
  w: number;
}

export interface Q {
  a: number[];
  s: number;
}

export function f(m: number[][]): number {
  let rs0 = 0;
  const [h1, ...r2] = m;
  r2[0][0] = Math.sin(h1[0] * r2[0][0]);
  rs0 = Math.tanh(rs0 + h1[0] * r2[0][0]);
  return 0.5 + 0.25 * Math.tanh(rs0);
}
