// Shrunk by the fuzzer (npm run fuzz): tsc — generated TypeScript fails tsc --strict: line 33: Argument of type 'readonly number[]' is not assignable to parameter of type 'number[]'. The type 'readonly number[]' is 'readonly' and cannot be assig
export interface P {
  u: number;
  v: number;
  w: number;
}

export function g0(ro0: readonly number[]): number {
  return Math.tanh((0.5 + ro0[0]));
}

export function f(x: number): number[] {
  let s0 = g0([0.5]);
  if (0.5 < 0.5) {
  } else {
    const q1: P = { u: Math.tanh(0.5), v: Math.sin(g0([Math.sin(x)])), w: 0.5 };
  }
  const r3 = Array.from({ length: 1 }, (_, j2) => 0.5 + 0.125 * (x + s0));
  return r3;
}
