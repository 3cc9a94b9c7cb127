// Shrunk by the fuzzer (npm run fuzz): accepts — a program in the subset is rejected: 16:3 `fill` needs an array variable
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
  const q0: Q = { a: [Math.tanh(0.5), Math.sin(0.5)], s: Math.atan(0.5) };
  q0.a[0] = 0.5 * q0.a[1] + 0.25 * Math.tanh(0.5);
  let js1 = 0;
  q0.a.fill(Math.tanh(0.5));
  js1 = Math.tanh(js1 + q0.a[0] * q0.a[1]);
  return 0.5 + 0.25 * Math.tanh(js1);
}
