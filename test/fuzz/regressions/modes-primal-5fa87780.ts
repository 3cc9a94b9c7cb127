// Shrunk by the fuzzer (npm run fuzz): modes-primal — primal values after f_d, f_dv differ from the primal's
export interface P {
  u: number;
  v: number;
  w: number;
}

export function f(a: number[]): number {
  return Math.atan2((Math.hypot(...a) + 0.5), 0.5 + (-1) * (-1));
}
