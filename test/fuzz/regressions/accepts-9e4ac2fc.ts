// Shrunk by the fuzzer (npm run fuzz): accepts — a program in the subset is rejected: 19:24 cannot type this argument of `concat`
export interface P {
  u: number;
  v: number;
  w: number;
}

export interface Q {
  a: number[];
  s: number;
}

export function f(x: number): number {
  let js0 = 0;
  const t1 = Array(1);
  for (let j2 = 0; j2 < 1; j2++) {
    t1[j2] = Math.tanh(0.5);
  }
  js0 = Math.tanh(js0 + t1[0] * t1[0]);
  const t3 = t1.concat(t1, Math.tanh(0.5));
  js0 = Math.tanh(js0 + t3[0] * t3[2]);
  return 0.5 + 0.25 * Math.tanh(js0);
}
