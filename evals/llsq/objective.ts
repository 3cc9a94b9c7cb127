// llsq: half the squared residual of the polynomial with coefficients x fitted to
// sign(t) on n equally spaced points of [-1, 1].
//   primal   = llsq(x, n)
//   gradient = d llsq / d x   (n is passive)

export function llsq(x: number[], n: number): number {
  const m = x.length;
  let y = 0;
  for (let i = 0; i < n; i++) {
    const t = -1 + (i * 2) / (n - 1);
    let r = Math.sign(t);
    let power = 1;
    for (let j = 0; j < m; j++) {
      r -= x[j] * power;
      power *= t;
    }
    y += r * r;
  }
  return y / 2;
}
