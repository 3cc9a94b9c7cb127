// Shrunk by hand from fuzz program #1506 (seed 261128): primal — the primal copy differs from the original.
// `b.concat(b, g1(b))` copied b before g1 wrote it; JavaScript evaluates the arguments first.
export function g1(v0: number[], x1: number): number {
  v0[0] = 2 * v0[1];
  return Math.atan(x1);
}

export function f(b: number[]): number {
  const t3 = b.concat(b, Math.tanh(g1(b, 0.25)));
  return t3[0] * 10 + t3[4] + t3[8];
}
