// Shrunk by the fuzzer (npm run fuzz): primal — the primal copy differs from the original
export interface P {
  u: number;
  v: number;
  w: number;
}

export function g0(v0: number[], x1: number, d: number = 2): number {
  if (d <= 0) return Math.tanh(0.5);
  {
    v0[0] = Math.tanh((-(-x1)));
  }
  return Math.tanh(v0[0] + 0.5 * g0(v0, Math.sin(x1), d - 1));
}

export function f(x: number): number {
  for (let i0 = 0; i0 < 2; i0++) {
    x = Math.tanh((g0([0.5], 0.25) + 0.5));
  }
  return 0.5 + 0.125 * (x);
}
