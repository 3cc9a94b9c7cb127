// Shrunk by the fuzzer (npm run fuzz): modes-primal — primal values after f_d, f_dv, f_b differ from the primal's
export interface P {
  u: number;
  v: number;
  w: number;
}

export function f(x: number, out: number[]): void {
  for (let j0 = 0; j0 < out.length; j0++) {
    out[j0] = (Math.hypot(...out) + out[0]);
  }
}
