// Shrunk by the fuzzer (npm run fuzz): dot — dot-product test fails (the adjoint is wrong: the tangent matches divided differences)
export interface P {
  u: number;
  v: number;
  w: number;
}

export function f(y: number, b: number[]): number {
  if (Math.pow(1 + y * y, Math.tanh(0.5)) < 0.5) {
  } else {
    if (Math.sin(b[0]) < y) {
      b[0] += Math.tanh((0.5 < 0.5 ? 0.5 : (-y)));
    }
  }
  return 0.5 + 0.125 * (y + b[0]);
}
