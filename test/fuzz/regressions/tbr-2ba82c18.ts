// Shrunk by the fuzzer (npm run fuzz): tbr — f_b with diff-liveness (adjoint: { primalResults: false }) differs from the naive adjoint
export interface P {
  u: number;
  v: number;
  w: number;
}

export interface Q {
  a: number[];
  s: number;
}

export function f(a: number[], b: number[]): number {
  const t0 = Array.from({ length: 1 }, () => Math.tanh(0.5));
  let st2: number[] = [Math.sin(0.5), 0.75];
  st2 = a;
  const st3 = st2;
  st3[0] = Math.tanh(0.5);
  return (Math.sin(st2[0]) * st2[1]);
}
