// Shrunk by the fuzzer (npm run fuzz): modes-primal — primal values after f_d, f_dv, f_b differ from the primal's
export interface P {
  u: number;
  v: number;
  w: number;
}

export function g0(out: number[], x0: number, d: number = 2): number {
  if (d <= 0) return Math.tanh(0.5);
  out[0] = 2 * out[0];
  return Math.tanh(out[0] + 0.5 * g0(out, Math.sin(x0), d - 1));
}

export function f(x: number, out: number[]): void {
  for (let j0 = 0; j0 < out.length; j0++) {
    out[j0] = (0.75 < (x + 0.5) ? g0([0.5], 0.25) : 0.5);
  }
}
