// Shrunk by the fuzzer (npm run fuzz): tbr — f_b with TBR differs from the naive adjoint (adjoint: { tbr: false })
export interface P {
  u: number;
  v: number;
  w: number;
}

export function f(x: number, a: number[], b: number[], c: Float64Array): number[] {
  if (0.5 < Math.tan(Math.tanh(1.5))) {
    if (0.5 < Math.PI) {
      for (let i0 = 0; i0 < a.length; i0++) {
        a[i0] = Math.tanh(0.5);
        x = Math.tanh(Math.atan2((-b[0]), 0.5 + a[0] * a[0]));
      }
    }
  }
  a[0] = 2 * a[0];
  const r3 = Array.from({ length: 1 }, (_, j2) => Math.atan2(0.5, 0.5 + (0.5 + (x + 0.5)) * (0.5 + (x + 0.5))));
  return r3;
}
