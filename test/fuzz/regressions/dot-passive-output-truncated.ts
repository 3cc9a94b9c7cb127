// Shrunk by hand from fuzz program #966 (seed 261129): dot — a false alarm of the check itself.
// `a` is written (truncated by `a.length = 1`) but not an independent: its zero tangent was shaped as
// the argument before the call (two elements), the divided differences as after it (one).
export function f(x: number, a: number[], out: number[]): void {
  a.length = 1;
  for (let j = 0; j < out.length; j++) out[j] = x * a[0] + out[j] * x;
}
