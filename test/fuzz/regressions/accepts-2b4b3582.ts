// Shrunk by the fuzzer (npm run fuzz): accepts — a program in the subset is rejected: 17:14 't3' is created with holes (`new Array(q1.a.length)` has no elements) and its length is not a plain name, literal or `.length`
export interface P {
  u: number;
  v: number;
  w: number;
}

export interface Q {
  a: number[];
  s: number;
}

export function f(b: number[]): number {
  const t0: number[] = new Array(1).fill(0.5);
  const q1: Q = { a: [Math.tanh(0.5), Math.sin(0.5)], s: Math.atan(0.5) };
  q1.a[0] = 0.5 * q1.a[1] + 0.25 * Math.tanh(0.5);
  let js2 = 0;
  const t3 = new Array(q1.a.length);
  for (let j4 = 0; j4 < q1.a.length; j4++) {
    t3[j4] = Math.tanh(0.5);
  }
  js2 = Math.tanh(js2 + t3[0] * t3[1]);
  return 0.5 + 0.25 * Math.tanh(js2);
}
