// Shrunk by the fuzzer (npm run fuzz): tsc — generated TypeScript fails tsc --strict: line 75: Argument of type 'P' is not assignable to parameter of type '{ u: Float64Array<ArrayBufferLike>; v: Float64Array<ArrayBufferLike>; w: Float64Array<Arr
export interface P {
  u: number;
  v: number;
  w: number;
}

export function g0(o0: P): number {
  return Math.tanh(0.5);
}

export function f(x: number, out: number[]): void {
  for (const e0 of out) {
    let s2 = Math.tanh((g0({ u: out[0], v: 1, w: (-0.5) }) + 0.5));
  }
  for (let i3 = 0; i3 < 2; i3++) {
    let k5 = 0;
    while (k5 < 1 && 0.5 < 0.5) {
      k5++;
      if (0.5 < 0.5) {
      } else {
        out[0] = Math.tanh((g0({ u: 0.5, v: 1, w: (-0.5) }) + 0.5));
      }
    }
  }
  for (let j7 = 0; j7 < out.length; j7++) {
    out[j7] = 0.5;
  }
}
