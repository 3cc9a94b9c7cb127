// Shrunk by the fuzzer (npm run fuzz): accepts — a program in the subset is rejected: 12:77 this expression cannot carry a derivative here (call)
export interface P {
  u: number;
  v: number;
  w: number;
}

export function g0(v0: number[]): number {
  return Math.tanh(0.5);
}

export function f(b: number[]): number[] {
  const r1 = Array.from({ length: 1 }, (_, j0) => (0.5 < 0.5 ? 0.5 : (0.5 + g0(b))) + 0.125 * (b[0]));
  return r1;
}
