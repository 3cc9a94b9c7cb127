// Shrunk by the fuzzer (npm run fuzz): dot — dot-product test fails (the adjoint is wrong: the tangent matches divided differences)
export interface P {
  u: number;
  v: number;
  w: number;
}

export function f(b: number[]): number[] {
  for (let i0 = 0; i0 < 2; i0++) {
    b[0] = Math.tanh((0.5 < 0.5 ? 0.5 : (b[0] + 0.5)));
  }
  const r3 = Array.from({ length: 1 }, (_, j2) => 0.5 + 0.125 * (b[0]));
  return r3;
}
