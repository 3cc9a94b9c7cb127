// Shrunk by the fuzzer (npm run fuzz): dot — dot-product test fails (the adjoint is wrong: the tangent matches divided differences)
export interface P {
  u: number;
  v: number;
  w: number;
}

export function g0(m0: number[][]): number {
  let s0 = Math.tanh((0.5 + Math.atan2(0.5, 0.5 + m0[0][1] * m0[0][1])));
  return Math.tanh(s0);
}

export function f(x: number): number[] {
  let s0 = g0([[0.5, x], [(-1), 2]]);
  const r2 = Array.from({ length: 1 }, (_, j1) => 0.5 + 0.125 * (x + s0));
  return r2;
}
