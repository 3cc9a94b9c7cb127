// Shrunk by the fuzzer (npm run fuzz): dot — dot-product test fails (the tangent is wrong: it differs from divided differences)
export interface P {
  u: number;
  v: number;
  w: number;
}

export function g0(out: number[], x0: number): void {
  out[0] = Math.tanh(0.5);
}

export function f(a: number[]): number {
  g0(a, 0.25);
  return 0.5 + 0.125 * (a[0]);
}
