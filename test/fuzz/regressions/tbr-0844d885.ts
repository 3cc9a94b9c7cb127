// Shrunk by the fuzzer (npm run fuzz): tbr — f_b with TBR differs from the naive adjoint (adjoint: { tbr: false })
export interface P {
  u: number;
  v: number;
  w: number;
}

const W: number[] = [0.5, -1.25, 2, 0.75];

export function g0(x0: number): number {
  return Math.tanh(x0);
}

export function f(x: number): number[] {
  const r1 = Array.from({ length: 2 }, (_, j0) => ((1 + ((0.5 < 0.5 ? 0.5 : Math.E) < (W[3 - j0] + W[3]) ? 0.5 : g0(x)) * ((0.5 < 0.5 ? 0.5 : Math.E) < (W[3 - j0] + W[3]) ? 0.5 : g0(x))) ** Math.tanh(0.5)));
  return r1;
}
