// Shrunk by the fuzzer (npm run fuzz): accepts — a program in the subset is rejected: 24:9 variable 't5' has type 'any[]', which tsad cannot differentiate through; 25:25 't5' cannot be resolved to a variable, parameter, module constant or function o
export interface P {
  u: number;
  v: number;
  w: number;
}

export interface Q {
  a: number[];
  s: number;
}

const W: number[] = [0.5, -1.25, 2, 0.75];

export function f(a: number[]): number[] {
  const t0 = a;
  t0[0] = Math.tanh(0.5);
  const t1: number[] = new Array(1).fill(0.5);
  let js2 = 0;
  const t3 = Array(1);
  for (let j4 = 0; j4 < 1; j4++) {
    t3[j4] = Math.tanh(0.5);
  }
  js2 = Math.tanh(js2 + t3[0] * t3[0]);
  const t5 = t3.concat(a, Math.tanh(0.5));
  js2 = Math.tanh(js2 + t5[0] * t5[2]);
  const r7 = Array.from({ length: 1 }, (_, j6) => 0.5 + 0.25 * Math.tanh(js2));
  return r7;
}
