// Shrunk by the fuzzer (npm run fuzz): tsc — generated TypeScript fails tsc --strict: line 28: Argument of type 'readonly number[]' is not assignable to parameter of type 'number[]'. The type 'readonly number[]' is 'readonly' and cannot be assig
export interface P {
  u: number;
  v: number;
  w: number;
}

export function g0(ro0: readonly number[], x1: number): number {
  x1 = Math.tanh(ro0[0]);
  return Math.tanh(Math.sin(x1));
}

export function f(x: number): number {
  let s0 = Math.tanh(g0([x], x));
  return g0([0.5], 0.25);
}
