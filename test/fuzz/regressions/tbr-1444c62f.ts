// Shrunk by the fuzzer (npm run fuzz): tbr — f_b with TBR differs from the naive adjoint (adjoint: { tbr: false })
export interface P {
  u: number;
  v: number;
  w: number;
}

export interface Q {
  a: number[];
  s: number;
}

export function f(b: number[]): number[] {
  for (const e0 of b) {
    const t2 = b;
    t2[0] = Math.tanh((0.5 < 0.5 ? 0.5 : (0.5 <= 0.5 ? e0 : 0.5)));
  }
  let fo3 = 0;
  const M4: number[][] = [[Math.tanh((b[0] + 0.5)), 0.5], [-0.25, 1]];
  let k5 = 0;
  while (k5 < 2) {
    k5++;
    const M6 = M4;
    M6[0][1] = Math.tanh((b[0] + 0.5));
  }
  for (let k7 = 0; k7 < 2; k7++) {
    let k8 = 0;
    while (k8 < 2) {
      k8++;
      const M9 = M4;
      M9[0][1] = Math.tanh((b[0] + 0.5));
    }
  }
  fo3 += 0.25 * M4[0][0] * M4[1][1];
  const r11 = Array.from({ length: 1 }, (_, j10) => 0.5 + 0.25 * Math.tanh(fo3));
  return r11;
}
