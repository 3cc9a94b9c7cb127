// Found by npm run fuzz -- --count 5000 --seed 112702 (program #515), not shrunk: the generator's fault, see README.md here
export interface P {
  u: number;
  v: number;
  w: number;
}

export interface Q {
  a: number[];
  s: number;
}

const W: number[] = [0.5, -1.25, 2, 0.75];

export function g0(v0: number[], x1: number, x2: number): number {
  const st1: P = { u: 0.75, v: 0.5, w: 1 };
  let st0: P = { u: Math.sin(W[1]), v: 1, w: 0.5 };
  for (let k2 = 0; k2 < 1; k2++) {
    st0 = st1;
  }
  const st3 = st0;
  st3.u = Math.tanh(W[1]);
  return Math.atan((((-0.5) > x2 ? st0.u : W[0]) / 3));
}

export function g1(v0: number[], x1: number, v2: number[]): number[][] {
  return [[Math.atan(((x1 * W[3]) / (1 + (W[1] / 3) * (W[1] / 3)))), 0.5], [0.75, 1]];
}

export function g2(v0: number[], v1: number[], d: number): number {
  if (d <= 0) return Math.sin(((-0.75) > Math.trunc((-1)) ? Math.tan(Math.tanh(v1[1])) : (v1[1] + (-1))));
  let st0: P = { u: Math.atan(Math.log(1 + Math.min(0.5, (v1.length * 0.25), (-1)) * Math.min(0.5, (v1.length * 0.25), (-1)))), v: 2, w: 0.5 };
  st0 = { u: 0.1 * Math.atan(Math.log(1 + Math.min(0.5, (v1.length * 0.25), (-1)) * Math.min(0.5, (v1.length * 0.25), (-1)))), v: 0.25, w: 0.25 };
  if ((st0 && st0)) {
    for (const e1 of W) {
      const ps3: P[] = [{ u: Math.tanh(Math.pow(Math.pow(1 + v0[0] * v0[0], Math.tanh(0.75)), 2)), v: 0.5, w: 1.5 }, { u: Math.tanh(Math.pow(Math.pow(1 + v0[0] * v0[0], Math.tanh(0.75)), 2)), v: 1, w: 1.5 }];
      for (let k4 = 0; k4 < 2; k4++) {
        const r5 = ps3[k4 % 2];
        ps3[k4 % 2] = ps3[1];
        ps3[1] = r5;
      }
      let s6 = (e1 / (1 + Math.abs(e1)));
      const st8: [number, number] = [0.1, 0.5];
      let st7: [number, number] = [Math.sin((Math.atan2(v0[0], 0.5 + 0.5 * 0.5) + (Math.LOG2E / (2 + Math.sin((-2)))))), 3];
      st7 = st8;
      const st9 = st7;
      st9[0] = Math.tanh((Math.atan2(v0[0], 0.5 + 0.5 * 0.5) + (Math.LOG2E / (2 + Math.sin((-2))))));
    }
  } else {
    B10: {
      if ((v0[0] > 0.5 && (-0.5) <= v0[0])) break B10;
      const q11: Q = { a: [Math.tanh(v0[((Math.abs(Math.tanh(v1[1])) * 0.5) | 0)]), Math.tanh(((isFinite(v0[0]) || v1[1] <= 0.75) ? st0.v : (W[2] > (-0.5) ? 0.5 : 0)))], s: Math.sin(((isFinite(v0[0]) || v1[1] <= 0.75) ? st0.v : (W[2] > (-0.5) ? 0.5 : 0))) };
      let k12 = 0;
      while (k12 < 2) {
        k12++;
        q11.a = [q11.a[1] + 0.5 * q11.s, q11.a[0] - 0.25 * q11.a[1]];
      }
    }
  }
  const ps13: P[] = [];
  let k14 = 0;
  while (k14 < 3) {
    k14++;
    ps13.push({ u: Math.tanh(v0[((Math.abs(Math.tanh(3)) * 0.5) | 0)]), v: k14 * 0.5, w: 0.25 });
  }
  ps13[0].w = Math.tanh(v0[((Math.abs(Math.tanh(3)) * 0.5) | 0)]);
  const t15 = v0.slice();
  return Math.sin((Math.LOG2E + v1[2]) + 0.5 * g2(v0, v1, d - 1));
}

export function f(x: number, a: number[], m: number[][], b: number[], p: P): number {
  p.u *= Math.tanh(2);
  b[2] -= Math.sin(Math.pow(1 + Math.LOG2E * Math.LOG2E, Math.tanh((Number.EPSILON > x ? a[0] : x))));
  switch (((Math.abs(Math.tanh(x)) * 1.5) | 0)) {
    case 0: {
      a[0] = (-1) * a[0];
      const q1 = p;
      q1.u = Math.tanh(1.5);
    } break;
  }
  const ps2: P[] = [];
  let k3 = 0;
  while (k3 < 2) {
    k3++;
    ps2.push({ u: Math.tanh(Math.max(Math.max(p.w, (-0.5)), a[((Math.abs(Math.tanh(p.v)) * 0.5) | 0)], g2(a, [W[1], 1, 2, 0.25], 1))), v: k3 * 0.5, w: 0.5 });
  }
  const r4 = ps2[0];
  ps2[0] = ps2[1];
  ps2[1] = r4;
  x -= Math.tanh(2);
  let fo5 = 0;
  for (let k6 = 0; k6 < 2; k6++) {
    for (let k7 = 0; k7 < 2; k7++) {
      L8: switch (k6 % 3) {
        case 0:
        default: {
          if (((1 + W[k7] * W[k7]) ** Math.tanh(Math.LOG2E)) > Math.min(...a)) break L8;
          const t9: number[] = [];
          for (let j10 = 0; j10 < 4; j10++) {
            t9.push(Math.atan(x));
          }
        } break;
      }
      fo5 += 0.25 * Math.tanh(((0.25 % 1.5) * Math.hypot(fo5, Math.E)));
    }
  }
  let ex11 = 0;
  let a12 = Math.tanh((W[0] * Math.max(...W)));
  let b13 = Math.sin(b[2]);
  [a12, b13] = [b13, 0.5 * a12];
  ex11 += a12 - 2 * b13;
  const M14: number[][] = [[Math.tanh((W[0] * Math.max(...W))), 0.5], [-0.25, 1], [0.75, -1]];
  [M14[1], M14[2]] = [M14[2], M14[1]];
  M14[0][0] = 0.5 * M14[0][0] + Math.sin(b[2]);
  ex11 += M14[0][0] * M14[2][1];
  ({ u: a12, w: b13 } = p);
  ex11 += a12 * b13;
  let js15 = 0;
  for (let k16 = 0; k16 < 2; k16++) {
  }
  let cb18 = 0;
  for (let k19 = 0; k19 < 2; k19++) {
    const t22 = W.findIndex((x20) => Math.tanh(x20 * Math.hypot(x, (x20 - x))) > 1.5);
    if (t22 >= 0) {
      cb18 = Math.tanh(cb18 + W[t22] * t22);
    }
  }
  cb18 = Math.tanh(cb18 + a.reduce((s, x23, i24) => s + Math.tanh(x23 * x) * i24, 0.5));
  let ta26 = 0;
  for (let k27 = 0; k27 < 2; k27++) {
    let k28 = 0;
    while (k28 < 2) {
      k28++;
      const t29 = new Int32Array(b.length);
      for (let j30 = 0; j30 < b.length; j30++) {
        t29[j30] = b.length - 1 - j30;
      }
      ta26 = Math.tanh(ta26 + b[t29[0]] * b[t29[2]]);
    }
  }
  let cl31 = 0;
  cl31 = Math.tanh(cl31 + g33(W));
  function g33(v34: readonly number[]): number {
    let t36 = 0;
    for (let j35 = 0; j35 < v34.length; j35++) {
      if (t36 > 4) return t36;
      const x32 = v34[j35];
      t36 += Math.tanh(Math.tanh(x32 * Math.trunc(a[0])));
    }
    return t36 * 0.5;
  }
  for (let k37 = 0; k37 < 2; k37++) {
    let tot40 = 0.25;
    const g39 = (x38: number) => {
      tot40 = 0.5 * tot40 + Math.tanh(Math.sin(x38 * (a[(k37 + 0) % 1] + (W[(k37 + 2 * k37 + 1) % 4] + x38))));
    };
    for (const x38 of W) g39(x38);
    g39(tot40);
    cl31 = Math.tanh(cl31 + tot40);
  }
  return Math.max(-Infinity, x, (b[2] > b[2] ? Math.acos(Math.tanh(x) * 0.9) : (a[0] > m[0][0] ? x : x))) + 0.25 * Math.tanh(fo5) + 0.25 * Math.tanh(ex11) + 0.25 * Math.tanh(js15) + 0.25 * Math.tanh(cb18) + 0.25 * Math.tanh(ta26) + 0.25 * Math.tanh(cl31);
}
