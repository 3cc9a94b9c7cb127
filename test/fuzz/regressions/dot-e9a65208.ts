// Shrunk by the fuzzer (npm run fuzz): dot — dot-product test fails (the adjoint is wrong: the tangent matches divided differences)
export interface P {
  u: number;
  v: number;
  w: number;
}

export interface Q {
  a: number[];
  s: number;
}

export function f(m: number[][], out: number[]): void {
  const r0 = m[0];
  m[0] = m[(0 + 1) % 2];
  m[(0 + 1) % 2] = r0;
  for (let j1 = 0; j1 < out.length; j1++) {
    out[j1] = 0.5;
  }
}
