// Shrunk by the fuzzer (npm run fuzz): dot — dot-product test fails (the adjoint is wrong: the tangent matches divided differences)
export interface P {
  u: number;
  v: number;
  w: number;
}

export function f(x: number, out: number[]): void {
  out[((Math.abs(Math.tanh(out[1])) * 1.5) | 0)] = Math.tanh(0.25);
  for (let j0 = 0; j0 < out.length; j0++) {
    out[j0] = 0.5 + 0.125 * (x + out[1]);
  }
}
