// Shrunk by the fuzzer (npm run fuzz): tsc — generated TypeScript fails tsc --strict: line 51: Argument of type 'readonly number[]' is not assignable to parameter of type 'number[]'. The type 'readonly number[]' is 'readonly' and cannot be assig
export interface P {
  u: number;
  v: number;
  w: number;
}

export function g0(ro0: readonly number[]): number {
  return Math.tanh(Math.sin(ro0[0]));
}

export function f(x: number): number {
  switch (((Math.abs(Math.tanh(0.5)) * 2.5) | 0)) {
    case 0: {
      if (0.5 < 0.5) {
        if (0.5 < 0.5) return Math.tanh((g0([x]) + 0.5));
      }
    } break;
    default: {
    } break;
  }
  return (0.5 + g0([0.5]));
}
