// Shrunk by the fuzzer (npm run fuzz): dot — dot-product test fails (the tangent is wrong: it differs from divided differences)
export interface P {
  u: number;
  v: number;
  w: number;
}

export function f(x: number): number {
  if (0.5 <= 0.5) {
    x = Math.tanh(0.5);
    x **= 2;
  }
  return x;
}
