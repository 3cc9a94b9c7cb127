// Shrunk by the fuzzer (npm run fuzz): runtime — generated code threw in the derivative functions: g0_fwd is not defined
export interface P {
  u: number;
  v: number;
  w: number;
}

export function g0(x0: number): number {
  return Math.tanh(0.5);
}

export function f(x: number): number {
  let s0 = g0(0.25);
  let k1 = 0;
  do {
    k1++;
    if (0.5 < 0.5) return Math.tanh(0.5);
    s0 = Math.tanh(0.5);
  } while (k1 < 1 && 0.5 < 0.5);
  return 0.5 + 0.125 * (x + s0);
}
