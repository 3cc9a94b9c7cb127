// Shrunk by the fuzzer (npm run fuzz): tbr — f_b with TBR differs from the naive adjoint (adjoint: { tbr: false })
export interface P {
  u: number;
  v: number;
  w: number;
}

const W: number[] = [0.5, -1.25, 2, 0.75];

export function g0(x0: number): number {
  return Math.tanh(0.5);
}

export function f(a: number[], c: Float64Array): number {
  const t0: number[] = [];
  for (let j1 = 0; j1 < 1; j1++) {
    t0.push(Math.tanh(0.5));
  }
  for (let i2 = 0; i2 < 2; i2++) {
    c[0] = Math.tanh((0.5 < 1 ? Math.atan2(0.5, 0.5 + c[0] * c[0]) : g0(0.25)));
  }
  return 0.5 + 0.125 * (a[0] + c[0] + W[3] + t0[0]);
}
