// Hand-reduced from program #1310 of `npm run fuzz -- --count 5000 --seed 112702`: a helper aliases its
// array parameter (`const t1 = v0`) and writes through the alias, called with a literal. The caller gave
// the helper's two sweeps two different zero shadows, so the adjoint written through the recorded alias
// was lost (dot-product test off; the tangent was right)
export function g0(v0: number[], ro1: readonly number[]): number {
  const t1 = v0;
  t1[0] = Math.tanh(ro1[0]);
  return Math.sin(v0[0]);
}

export function f(y: number, out: number[]): void {
  const fo0 = g0([1, 2, 3, 4], out);
  for (let j24 = 0; j24 < out.length; j24++) {
    out[j24] = out[j24] + 0.125 * out[0] + 0.25 * fo0;
  }
}
