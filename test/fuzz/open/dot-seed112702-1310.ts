// Found by npm run fuzz -- --count 5000 --seed 112702 (program #1310), not shrunk: a WRONG ADJOINT (see README.md here)
export interface P {
  u: number;
  v: number;
  w: number;
}

export interface Q {
  a: number[];
  s: number;
}

export function g0(v0: number[], ro1: readonly number[]): number {
  B0: {
    if (!(ro1[0] <= 0.75)) break B0;
    v0[1] = 1 * v0[3];
    const t1 = v0;
    t1[0] = Math.tanh(Math.hypot((2 <= 0.25 ? 1 : ro1[0]), v0[3]));
  }
  let st2: number[][] = [[Math.atan(v0[3]), 0.5], [-0.25, 1]];
  let k3 = 0;
  while (k3 < 2) {
    k3++;
    st2[1][0] = 0.5 * Math.atan(v0[(k3 + 3) % 4]);
    st2 = [[Math.tanh(st2[0][0] * st2[1][1]) + 0.1 * Math.atan(v0[(k3 + 3) % 4]), st2[0][1]], [st2[1][0], st2[1][1] + 0.1 * st2[0][0]]];
  }
  let k4 = 0;
  while (k4 < 1 && Math.sinh(Math.tanh((-2))) > 0.25) {
    k4++;
    let st6: number[] = [Math.sin(st2[1][(k4 + 1) % 2]), 2, 0.25];
    for (let k7 = 0; k7 < 2; k7++) {
      st6 = [st6[0] + 0.1 * st6[1] + 0.1 * Math.sin(st2[1][(k4 + 1) % 2]), st6[1] - 0.1 * Math.sin(st6[2]), st6[2] + 0.1 * Math.sin(st6[0])];
    }
    const st8 = st6;
    st8[0] = Math.tanh(st2[1][(k4 + 1) % 2]);
    switch (k4 % 2) {
      case 0: {
      } break;
    }
  }
  const q10: Q = { a: [Math.tanh((Math.sign((st2[1][0] + 0.75)) * Math.max(v0[2], v0[2], 0))), Math.tanh(2)], s: Math.sin(2) };
  let k11 = 0;
  while (k11 < 2) {
    k11++;
  }
  return Math.tanh((Math.hypot(q10.a[1], st2[0][0]) % (1 + Math.atan(q10.a[0]) * Math.atan(q10.a[0]))));
}

export function g1(v0: number[], v1: number[]): number[][] {
  return [[Math.tanh((0.5 % 1.5)), 0.5], [(-0.5), 1]];
}

export function f(y: number = 0.5, m: number[][], out: number[]): void {
  let fo0 = 0;
  const ps1: P[] = [{ u: Math.sin(g0([Math.acosh(1.5 + Math.LN10 * Math.LN10), 1, 2, 0.25], out)), v: 0.5, w: 1 }, { u: -0.5, v: 0.25, w: 0.25 }];
  let k2 = 0;
  while (k2 < 2) {
    k2++;
    const ps3 = ps1;
    ps3[(k2 + 0) % ps3.length].w = Math.sin(g0([Math.acosh(1.5 + Math.LN10 * Math.LN10), 1, 2, 0.25], out));
  }
  for (let k4 = 0; k4 < 2; k4++) {
    let k5 = 0;
    while (k5 < 2) {
      k5++;
      const ps6 = ps1;
      ps6[(k5 + 0) % ps6.length].w = Math.sin(g0([Math.acosh(1.5 + Math.LN10 * Math.LN10), 1, 2, 0.25], out));
    }
  }
  fo0 += 0.25 * (ps1[0].u + ps1[1].w);
  let js7 = 0;
  for (let k8 = 0; k8 < 2; k8++) {
    const t9 = new Array(2);
    for (let j10 = 0; j10 < 2; j10++) {
      t9[j10] = Math.sin((Math.abs(out[(k8 + 0) % out.length]) < (out[(j10 + 0) % 1] * y) ? (-out[(j10 + 0) % out.length]) : 0.1));
    }
    js7 = Math.tanh(js7 + t9[0] * t9[1]);
  }
  let k11 = 0;
  while (k11 < 2) {
    k11++;
    const t12 = out.fill(Math.atan(Math.max((0.25 % (1 + out[(k11 + 2 * k11 + 1) % 1] * out[(k11 + 2 * k11 + 1) % 1])), (y + (y || 2)), y)));
    js7 = Math.tanh(js7 + t12[0] * t12[0]);
  }
  for (let k13 = 0; k13 < 2; k13++) {
    out.fill(Math.sin(g0([2, (-0.5), 2, 0.25], out)));
    js7 = Math.tanh(js7 + out[0] * out[0]);
  }
  let ta15 = 0;
  const t16 = new Float32Array(1);
  for (let j17 = 0; j17 < 1; j17++) {
    t16[j17] = j17 * 1;
  }
  ta15 = Math.tanh(ta15 + t16[0] * out[0] + t16[0]);
  let cl18 = 0;
  for (let k19 = 0; k19 < 2; k19++) {
    const buf22 = [0, 0.25];
    function g21(x20: number, j23: number): void {
      buf22[j23 % 2] += Math.tanh(Math.atan(x20 * Math.atan2(Math.tanh((out[(k19 + 0) % 1] - m[0][k19])), 1.25 + Math.cos((k19 % 2 === 0 ? m[(k19 + 1) % 3][(k19 + 1) % 2] : m[k19][k19])))));
    }
    for (let j23 = 0; j23 < out.length; j23++) g21(out[j23], j23);
    cl18 = Math.tanh(cl18 + buf22[0] - buf22[1]);
  }
  for (let j24 = 0; j24 < out.length; j24++) {
    out[j24] = out[(j24 + 0) % out.length] + 0.125 * (y + out[0] + m[0][0]) + 0.25 * Math.tanh(fo0) + 0.25 * Math.tanh(js7) + 0.25 * Math.tanh(ta15) + 0.25 * Math.tanh(cl18);
  }
}
