// Shrunk by the fuzzer (npm run fuzz): dot — dot-product test fails (the adjoint is wrong: the tangent matches divided differences)
export interface P {
  u: number;
  v: number;
  w: number;
}

export function f(x: number): number {
  {
    {
      for (let i2 = 0; i2 < 2; i2++) {
        x -= Math.tanh(x);
      }
    }
  }
  x -= Math.tanh((x + 0));
  return 0.5 + 0.125 * (x);
}
