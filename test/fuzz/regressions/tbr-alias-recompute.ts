// Reduced by hand from tbr-1444c62f: `e0 = b[i]` was recomputed in the backward sweep before the
// store through the alias t2 was undone (recomputation did not see writes through aliases).
export function f(b: number[]): number {
  for (const e0 of b) {
    const t2 = b;
    t2[0] = Math.tanh(0.5 <= 0.5 ? e0 : 0.5);
  }
  const M4: number[][] = [[Math.tanh(b[0] + 0.5), 0.5], [-0.25, 1]];
  for (let k7 = 0; k7 < 2; k7++) {
    let k8 = 0;
    while (k8 < 2) {
      k8++;
      const M9 = M4;
      M9[0][1] = Math.tanh(b[0] + 0.5);
    }
  }
  return M4[0][0];
}
