// Shrunk by the fuzzer (npm run fuzz): tbr — f_b in joint mode (adjoint: { checkpointCalls: true }) differs from the naive adjoint
export interface P {
  u: number;
  v: number;
  w: number;
}

export function g0(x0: number): number {
  return Math.tanh(Math.acosh(1.5 + x0 * x0));
}

export function f(x: number, out: number[]): void {
  const sa1 = new Float64Array(3);
  const sb2 = new Float64Array(3);
  let acc0 = 0;
  for (let i3 = 0; i3 < 2; i3++) {
    const t5 = Math.tanh(Math.atan2(0.5, 0.5 + Math.sin(x) * Math.sin(x)));
    let u6 = x;
    for (let j7 = 0; j7 < 2; j7++) {
      for (let j8 = 0; j8 < 3; j8++) {
        sa1[j8] = Math.sin((Math.sin(x) + 0.5));
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
    acc0 += Math.tanh(u6) * (Math.atan(Math.sin(g0(x))));
  }
  for (let j16 = 0; j16 < out.length; j16++) {
    out[j16] = 0.5 + 0.125 * (x + acc0 + out[0]);
  }
}
