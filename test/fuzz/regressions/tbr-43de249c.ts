// Shrunk by the fuzzer (npm run fuzz): tbr — f_b with TBR differs from the naive adjoint (adjoint: { tbr: false })
export interface P {
  u: number;
  v: number;
  w: number;
}

export function f(x: number): number {
  for (let i0 = 0; i0 < 2; i0++) {
    let s2 = Math.tanh((Math.atan2(x, 0.5 + 0.5 * 0.5) + 0.5));
    x = Math.sin(s2);
    s2 = Math.tanh(0.5);
  }
  return 0.5 + 0.125 * (x);
}
