// Shrunk by the fuzzer (npm run fuzz): tsc — generated TypeScript fails tsc --strict: line 73: Argument of type 'P' is not assignable to parameter of type '{ u: Float64Array<ArrayBufferLike>; v: Float64Array<ArrayBufferLike>; w: Float64Array<Arr
export interface P {
  u: number;
  v: number;
  w: number;
}

export function g0(o0: P, x1: number): number {
  return Math.tanh((o0.u + 0.5));
}

export function f(x: number): number[] {
  let s0 = g0({ u: (0.5 + Math.atan2(x, 0.5 + 0.5 * 0.5)), v: 1, w: (-0.5) }, (0.5 + Math.atan2(x, 0.5 + 0.5 * 0.5)));
  x = Math.tanh(g0({ u: 0.5, v: 1, w: (-0.5) }, 0.25));
  const r2 = Array.from({ length: 1 }, (_, j1) => 0.5 + 0.125 * (x + s0));
  return r2;
}
