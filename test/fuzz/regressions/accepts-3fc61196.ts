// Shrunk by the fuzzer (npm run fuzz): accepts — a program in the subset is rejected: 19:14 't3' is created with holes (`Array(q0.a.length)` has no elements) and its length is not a plain name, literal or `.length`
export interface P {
  u: number;
  v: number;
  w: number;
}

export interface Q {
  a: number[];
  s: number;
}

export function f(b: number[], c: Float64Array): number {
  const q0: Q = { a: [Math.tanh(0.5), Math.sin(0.5)], s: Math.atan(0.5) };
  q0.a[0] = 0.5 * q0.a[1] + 0.25 * Math.tanh(0.5);
  let st1: number[] = [Math.tanh(0.5), 1];
  st1[1] = 0.5 * st1[1] + 0.5 * Math.tanh(0.5);
  st1 = [st1[0] + 0.1 * st1[1] + 0.1 * Math.tanh(0.5), st1[1] - 0.1 * Math.sin(st1[0])];
  let js2 = 0;
  const t3 = Array(q0.a.length);
  for (let j4 = 0; j4 < q0.a.length; j4++) {
    t3[j4] = Math.tanh(0.5);
  }
  js2 = Math.tanh(js2 + t3[0] * t3[1]);
  return 0.5 + 0.25 * Math.tanh(js2);
}
