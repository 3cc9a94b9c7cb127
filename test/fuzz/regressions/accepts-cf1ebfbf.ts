// Shrunk by the fuzzer (npm run fuzz): accepts — a program in the subset is rejected: 26:14 Array.from result has type 'any[]', which tsad cannot differentiate through
export interface P {
  u: number;
  v: number;
  w: number;
}

export interface Q {
  a: number[];
  s: number;
}

export function g0(x0: number): number | null {
  if (x0 > 1.25) return null;
  return Math.tanh(0.5);
}

export function f(m: number[][]): number[] {
  const maybe0 = g0(0.5);
  switch (((Math.abs(Math.tanh(0.5)) * 1.5) | 0)) {
    case 0: {
    } break;
  }
  var hv2;
  if (0.5 <= 0.25) hv2 = Math.atan(0.5);
  else hv2 = Math.tanh((-0.5));
  const r5 = Array.from({ length: 1 }, (_, j4) => hv2);
  return r5;
}
