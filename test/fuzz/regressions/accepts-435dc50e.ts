// Shrunk by the fuzzer (npm run fuzz): accepts — a program in the subset is rejected: 13:32 this expression cannot carry a derivative here (call)
export interface P {
  u: number;
  v: number;
  w: number;
}

export function g0(x0: number): number {
  return Math.tanh(0.5);
}

export function f(x: number): number {
  for (let i0 = 0; i0 < 2; i0++) {
    x = Math.tanh((0.5 < 0.5 ? g0(x) : 0.5));
  }
  return 0.5 + 0.125 * (x);
}
