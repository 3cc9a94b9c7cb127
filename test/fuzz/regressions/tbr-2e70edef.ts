// Shrunk by the fuzzer (npm run fuzz): tbr — f_b with TBR differs from the naive adjoint (adjoint: { tbr: false })
export interface P {
  u: number;
  v: number;
  w: number;
}

export function g0(x0: number): number {
  return Math.tanh(0.5);
}

export function f(x: number): number {
  for (let i0 = 0; i0 < 2; i0++) {
    let k2 = 0;
    while (k2 < 1 && !isNaN(0.5)) {
      k2++;
      x = Math.tanh((0.5 > (-0.5) ? x : g0(0.25)));
    }
  }
  return 0.5 + 0.125 * (x);
}
