// Shrunk by the fuzzer (npm run fuzz): primal — the primal copy differs from the original
export interface P {
  u: number;
  v: number;
  w: number;
}

export function g0(o0: P, x1: number): number {
  switch (((Math.abs(Math.tanh(0.5)) * 3.5) | 0)) {
    case 0: {
    } break;
    case 1: {
      o0.u = Math.tanh(0.5);
    } break;
    default: {
    } break;
  }
  return Math.tanh(0.5);
}

export function f(p: P): number {
  p.u += Math.tanh((0.5 + g0(p, 0.25)));
  return 0.5;
}
