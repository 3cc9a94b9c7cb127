// Shrunk by the fuzzer (npm run fuzz): tbr — f_b with TBR differs from the naive adjoint (adjoint: { tbr: false })
export interface P {
  u: number;
  v: number;
  w: number;
}

export function g0(v0: number[], x1: number): number {
  v0[0] = Math.tanh(Math.sin(x1));
  return Math.tanh(0.5);
}

export function f(b: number[]): number {
  for (let i0 = 0; i0 < 2; i0++) {
    for (let i2 = 0; i2 < 2; i2++) {
      let s4 = Math.tanh(Math.sin(g0(b, b[0])));
    }
  }
  return 0.5 + 0.125 * (b[0]);
}
