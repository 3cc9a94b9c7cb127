// Shrunk by the fuzzer (npm run fuzz): dot — dot-product test fails (the adjoint is wrong: the tangent matches divided differences)
export interface P {
  u: number;
  v: number;
  w: number;
}

export function f(a: number[]): number {
  a[0] += Math.tanh(Math.sin((0.5 < 0.5 ? a[0] : 0.5)));
  return 0.5 + 0.125 * (a[0]);
}
