// Shrunk by the fuzzer (npm run fuzz): accepts — a program in the subset is rejected: 14:82 this expression cannot carry a derivative here (call)
export interface P {
  u: number;
  v: number;
  w: number;
}

export function g0(x0: number): number {
  return Math.tanh(0.5);
}

export function f(x: number): number {
  const M0: number[][] = [];
  for (let j1 = 0; j1 < 2; j1++) {
    const t3 = Array.from({ length: 2 }, (_, j2) => Math.tanh((0.5 < 0.5 ? 0.5 : g0(x))));
    M0.push(t3);
  }
  return 0.5 + 0.125 * (x + M0[0][0]);
}
