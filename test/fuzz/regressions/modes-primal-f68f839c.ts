// Shrunk by the fuzzer (npm run fuzz): modes-primal — primal values after f_d, f_dv, f_b differ from the primal's
export interface P {
  u: number;
  v: number;
  w: number;
}

export function g0(v0: number[]): number {
  v0[0] = Math.tanh(0.5);
  return Math.tanh(0.5);
}

export function f(a: number[]): number {
  for (const e0 of a) {
    a[0] += Math.tanh((g0(a) + 0.5));
  }
  return 0.5;
}
