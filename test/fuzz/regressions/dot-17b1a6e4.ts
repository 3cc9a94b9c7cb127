// Shrunk by the fuzzer (npm run fuzz): dot — dot-product test fails (the adjoint is wrong: the tangent matches divided differences)
export interface P {
  u: number;
  v: number;
  w: number;
}

export function f(m: number[][], p: P): number {
  let s0 = Math.tanh(0.5);
  for (let i1 = 0; i1 < 2; i1++) {
    if (0.5 < 0.5) {
    } else {
      let k3 = 0;
      while (k3 < 1 && 0.5 < 0.5) {
        k3++;
        s0 = Math.tanh((0.5 < 0.5 ? 0.5 : (0.5 < 0.5 ? 0.5 : p.u)));
      }
    }
  }
  m[0][0] += Math.tanh(Math.sin((0.5 < 0.5 ? 0.5 : s0)));
  return 0.5 + 0.125 * (s0 + m[0][0] + p.u);
}
