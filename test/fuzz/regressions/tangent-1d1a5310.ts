// Shrunk by the fuzzer (npm run fuzz): tangent — tangent differs from central divided differences
export interface P {
  u: number;
  v: number;
  w: number;
}

export function g0(v0: number[], x1: number): number {
  v0[1] = 2 * v0[0];
  return Math.tanh(0.5);
}

export function f(a: number[]): number {
  let k0 = 0;
  while (k0 < 1 && 0.5 < g0(a, 0.25)) {
    k0++;
  }
  for (let i2 = 0; i2 < 2; i2++) {
    if (i2 % 2 === 0) {
      for (let i4 = 0; i4 < 2; i4++) {
        a[(i4 + 2) % 4] = 2 * a[1];
      }
    }
  }
  return 0.5 + 0.125 * (a[3]);
}
