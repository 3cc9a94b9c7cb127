// Shrunk by the fuzzer (npm run fuzz): accepts — a program in the subset is rejected: 13:56 this expression cannot carry a derivative here (call)
export interface P {
  u: number;
  v: number;
  w: number;
}

export function g0(x0: number): number {
  return Math.tanh(0.5);
}

export function f(x: number, out: number[]): void {
  for (let j0 = 0; j0 < out.length; j0++) {
    out[j0] = (0.5 < 0.5 ? 0.5 : Math.atan2(0.5, 0.5 + g0(x) * g0(x))) + 0.125 * (x + out[0]);
  }
}
