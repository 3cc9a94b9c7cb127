// Shrunk by the fuzzer (npm run fuzz): tsc — generated TypeScript fails tsc --strict: line 72: Argument of type 'P' is not assignable to parameter of type '{ u: Float64Array<ArrayBufferLike>; v: Float64Array<ArrayBufferLike>; w: Float64Array<Arr
export interface P {
  u: number;
  v: number;
  w: number;
}

export function g0(o0: P): number {
  return Math.tanh(0.5);
}

export function f(p: P): number[] {
  if (0.5 < 0.5) {
  } else {
    for (let i0 = 0; i0 < 2; i0++) {
      if (0.5 < 0.5) {
        let s2 = Math.tanh(g0(p));
      }
      if (0.5 < 0.5) {
        let s3 = g0({ u: 0.5, v: 1, w: (-0.5) });
      }
    }
  }
  const r5 = Array.from({ length: 1 }, (_, j4) => 0.5 + 0.125 * (p.u));
  return r5;
}
