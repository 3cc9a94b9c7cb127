// Shrunk by the fuzzer (npm run fuzz): dot — dot-product test fails (the adjoint is wrong: the tangent matches divided differences)
export interface P {
  u: number;
  v: number;
  w: number;
}

export function f(y: number, b: number[]): number {
  for (let i0 = 0; i0 < 2; i0++) {
    y = Math.tanh(Math.min((-b[(i0 + 2 * i0 + 0) % 2]), 0.5, 0.5));
  }
  b[((Math.abs(Math.tanh(b[0])) * 1.5) | 0)] -= Math.tanh(0.5);
  return 0.5 + 0.125 * (y + b[1]);
}
