// Shrunk by the fuzzer (npm run fuzz): primal — the primal copy differs from the original
export interface P {
  u: number;
  v: number;
  w: number;
}

export function f(b: number[]): number {
  return Math.hypot(...b);
}
