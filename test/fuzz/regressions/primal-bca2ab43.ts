// Shrunk by the fuzzer (npm run fuzz): primal — the primal copy differs from the original
export interface P {
  u: number;
  v: number;
  w: number;
}

export function g0(v0: number[]): number {
  v0[0] += Math.tanh(0.5);
  return Math.tanh(0.5);
}

export function f(a: number[]): number {
  for (let i0 = 0; i0 < 2; i0++) {
    a[i0] += Math.tanh((g0(a) + 0.5));
  }
  return 0.5;
}
