// Shrunk by the fuzzer (npm run fuzz): tsc — generated TypeScript fails tsc --strict: line 63: Argument of type 'P' is not assignable to parameter of type '{ u: Float64Array<ArrayBufferLike>; v: Float64Array<ArrayBufferLike>; w: Float64Array<Arr
export interface P {
  u: number;
  v: number;
  w: number;
}

export function g0(x0: number, o1: P): number {
  return Math.tanh(0.5);
}

export function f(p: P): number {
  if (0.5 < 0.5) {
    let k0 = 0;
    while (k0 < 1 && 0.5 < 0.5) {
      k0++;
      if (0.5 < 0.5) {
        let s2 = g0((0.5 + g0(0.25, { u: 0.5, v: 1, w: (-0.5) })), p);
      }
    }
  }
  return Math.sin(g0(0.25, p));
}
