// Shrunk by the fuzzer (npm run fuzz): dot — dot-product test fails (the adjoint is wrong: the tangent matches divided differences)
export interface P {
  u: number;
  v: number;
  w: number;
}

export function f(x: number): number {
  const t0 = Array.from({ length: 1 }, () => Math.tanh((0.5 + (x + 0.5))));
  t0[0] += Math.tanh((-(0.5 < 0.5 ? x : 0.5)));
  return 0.5 + 0.125 * (x + t0[0]);
}
