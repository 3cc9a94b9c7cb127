// Shrunk by the fuzzer (npm run fuzz): tsc — generated TypeScript fails tsc --strict: line 246: This kind of expression is always truthy.; line 248: This kind of expression is always truthy.
export interface P {
  u: number;
  v: number;
  w: number;
}

export interface Q {
  a: number[];
  s: number;
}

export function g0(x0: number): number {
  return Math.tanh((x0 || 2));
}

export function f(x: number): number {
  const sa1 = new Float64Array(3);
  const sb2 = new Float64Array(3);
  let acc0 = 0;
  for (let i3 = 0; i3 < 2; i3++) {
    const t5 = Math.tanh(0.5);
    let u6 = 0.5;
    for (let j7 = 0; j7 < 2; j7++) {
      for (let j8 = 0; j8 < 3; j8++) {
        sa1[j8] = Math.sin(0.5);
        sb2[j8] = sa1[j8] * t5;
      }
      for (let j9 = 0; j9 < 3; j9++) {
        for (let j10 = 0; j10 < j9; j10++) {
          sb2[j9] += t5 * sa1[j10];
        }
      }
      for (let j11 = 0; j11 < 3; j11++) u6 += sb2[j11] * sb2[j11];
    }
    let mx12 = sb2[0];
    for (let j14 = 1; j14 < 3; j14++) {
      if (sb2[j14] > mx12) mx12 = sb2[j14];
    }
    let se13 = 0;
    for (let j15 = 0; j15 < 3; j15++) se13 += Math.exp(sb2[j15] - mx12);
    u6 += mx12 + Math.log(se13);
    acc0 += Math.tanh(u6) * (Math.atan(Math.atan2(0.5, 0.5 + g0(0.25) * g0(0.25))));
  }
  let fo16 = 0;
  const M17: number[][] = [[Math.tanh((0.5 < 0.5 ? acc0 : 0.5)), 0.5], [-0.25, 1]];
  let k18 = 0;
  while (k18 < 2) {
    k18++;
    const M19 = M17;
    M19[0][1] = Math.tanh((0.5 < 0.5 ? acc0 : 0.5));
  }
  for (let k20 = 0; k20 < 2; k20++) {
    let k21 = 0;
    while (k21 < 2) {
      k21++;
      const M22 = M17;
      M22[0][1] = Math.tanh((0.5 < 0.5 ? acc0 : 0.5));
    }
  }
  fo16 += 0.25 * M17[0][0] * M17[1][1];
  return 0.5 + 0.25 * Math.tanh(fo16);
}
