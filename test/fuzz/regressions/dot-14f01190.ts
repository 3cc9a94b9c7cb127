// Shrunk by the fuzzer (npm run fuzz): dot — dot-product test fails (the adjoint is wrong: the tangent matches divided differences)
export interface P {
  u: number;
  v: number;
  w: number;
}

export function f(p: P): number {
  p.u = Math.tanh((0.5 <= 0.5 ? Math.sin(p.u) : 0.5));
  return 0.5 + 0.125 * (p.u);
}
