// Shrunk by the fuzzer (npm run fuzz): tangent — tangent differs from central divided differences
export interface P {
  u: number;
  v: number;
  w: number;
}

export function g0(v0: number[], x1: number): number {
  v0[0] = 2 * v0[0];
  return Math.tanh(0.5);
}

export function f(b: number[]): number {
  let k0 = 0;
  while (k0 < 1 && g0(b, 0.25) < 0.5) {
    k0++;
  }
  return 0.5 + 0.125 * (b[0]);
}
