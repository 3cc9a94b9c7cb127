// Shrunk by the fuzzer (npm run fuzz): dot — dot-product test fails (the adjoint is wrong: the tangent matches divided differences)
export interface P {
  u: number;
  v: number;
  w: number;
}

export function g0(v0: number[], d: number): number {
  if (d <= 0) return Math.tanh(v0[0]);
  return Math.tanh(0.5 + 0.5 * g0(v0, d - 1));
}

export function f(x: number, out: number[]): void {
  for (let j0 = 0; j0 < out.length; j0++) {
    out[j0] = g0(out, 0);
  }
}
