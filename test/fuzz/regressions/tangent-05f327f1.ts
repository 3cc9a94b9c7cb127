// Found by npm run fuzz -- --count 3000 (seed 696592638, program #1781): a false alarm of the checker — tangent vs divided differences on a steep function (∂f/∂a[1] ≈ -3.65e9), whose truncation error shrinks as h²
export interface P {
  u: number;
  v: number;
  w: number;
  z?: number;
}

export interface Q {
  a: number[];
  s: number;
}

export function g0(ro0: readonly number[], v1: number[]): [number, number] {
  switch (((Math.abs(Math.tanh(Math.PI)) * 3.5) | 0)) {
    case 0: {
      let st1: number[] = [Math.atan(0.5), (-0.5)];
      for (const e2 of st1) {
        st1[1] = 0.5 * st1[1] + 0.5 * Math.atan(0.5);
        st1 = st1.slice();
      }
    } break;
    case 1: {
      const t3: number[] = [];
      t3.push(Math.tanh(Math.PI));
      t3.push(Math.tanh(Math.PI));
      t3.push(Math.sin(Math.PI));
      t3.push(Math.atan(Math.PI));
      const t4: number[] = [];
      for (let j5 = 0; j5 < 3; j5++) {
        t4.push(Math.tanh((Math.abs(((-2) / (2 + Math.sin((-1))))) ** 1.5)));
      }
    } break;
    default: {
      switch (((Math.abs(Math.tanh(ro0[1])) * 3.5) | 0)) {
        case 0: {
        } break;
        case 1:
        default: {
          const t7 = Array.from({ length: 4 }, () => Math.tanh(v1[0]));
        } break;
      }
      for (const key10 in ro0) {
        const e9 = ro0[key10];
        const i11 = +key10;
        let s13 = Math.sin(Math.acosh(1.5 + Math.abs(3) * Math.abs(3)));
        v1[(i11 + 0) % 2] = 2 * v1[(i11 + 1) % 2];
      }
    } break;
  }
  const s14 = ((-1) / (1 + Math.abs((-1))));
  let k15 = 0;
  while (k15 < 4 && Math.cosh(Math.tanh(v1[0])) <= ro0[0]) {
    k15++;
    let st17: number[][] = [[Math.tanh(Math.atan2(Math.tanh(Math.round(v1[(k15 + 0) % v1.length])), 1.25 + Math.cos(0.5))), 0.5], [-0.25, 1]];
    let k18 = 0;
    while (k18 < 1) {
      k18++;
      st17[1][0] = 0.5 * Math.tanh(Math.atan2(Math.tanh(Math.round(v1[(k15 + 0) % v1.length])), 1.25 + Math.cos(0.5)));
      st17 = [[Math.tanh(st17[0][0] * st17[1][1]) + 0.1 * Math.tanh(Math.atan2(Math.tanh(Math.round(v1[(k15 + 0) % v1.length])), 1.25 + Math.cos(0.5))), st17[0][1]], [st17[1][0], st17[1][1] + 0.1 * st17[0][0]]];
    }
  }
  return [Math.tanh((v1.length * 0.25)), Math.sin(((s14 > (s14 && s14) ? v1[0] : ro0[3]) % 1.5))];
}

export function g1(v0: number[], d: number = 1): number {
  if (d <= 0) return Math.sin(Math.pow(1 + ((-0.5) + 1) * ((-0.5) + 1), Math.tanh((1 + 0.5))));
  return Math.sin(Math.max(-Infinity, v0[1], (-2)) + 0.5 * g1(v0, d - 1));
}

export function f(a: number[]): number {
  B0: {
    if (2 < 1) break B0;
    const t1 = a.slice();
    if ((1.5 % 1.5) >= (t1.length * 0.25)) return Math.atan(Math.hypot(Math.max(2, (t1.length * 0.25)), Math.cos(t1[0])));
    for (const e2 of a) {
      const t4 = t1;
      t4[0] = Math.tanh(a[0]);
      for (let k5 = 0; k5 < 2; k5++) {
        const t6 = g0([0.5, 1, 2, 0.25], t1);
      }
      for (let k7 = 0; k7 < 2; k7++) {
        const t8 = g0([0.5, 1, 2, 0.25], a);
      }
      for (const e9 of a) {
        t4[0] = (-1) * t4[1];
      }
    }
  }
  a[((Math.abs(Math.tanh(a[1])) * 1.5) | 0)] *= Math.sin(a[1]);
  for (let i11 = 1; i11 < 3; i11++) {
    const t13 = a.slice();
    if (t13[(i11 + 0) % t13.length] >= Math.hypot(a[(i11 + 1) % 2], 0)) continue;
  }
  const q14: P = (Math.abs(a[1]) % 1.5) > 0.25 ? { u: Math.atan(0.5), v: Math.tanh(Math.E), w: (Math.abs(a[1]) % 1.5) } : { u: 0.5, v: Math.atan(Math.E), w: 1 };
  for (const key16 in a) {
    const e15 = a[key16];
    const i17 = Number(key16);
    const st20: [number, number] = [0, 0.5];
    let st19: [number, number] = [Math.tanh(Math.log1p(a[(i17 + 1) % 2] * a[(i17 + 1) % 2])), 1.5];
    st19 = st20;
    q14.v = Math.sin(1);
    q14.v **= 2;
    const q21: Q = { a: [Math.atan(st19[(i17 + 1) % st19.length]), Math.tanh((st19.length * 0.25))], s: Math.tanh((st19.length * 0.25)) };
    for (let k22 = 0; k22 < 2; k22++) {
      q21.a[1] = 0.5 * q21.a[1] + 0.25 * Math.atan(st19[(k22 + 1) % st19.length]);
    }
    const dflt23 = { u: 0.5, v: Math.atan((st19.length * 0.25)), w: 1, z: -0.25 };
    const merged24 = Object.assign({}, dflt23, q14);
    q21.s += 0.25 * (merged24.u * merged24.v + (merged24.z ?? 0.5));
    q21.s -= Math.tanh(Math.hypot(Math.LN10, a[(i17 + 1) % 2]));
  }
  for (let i25 = 0; i25 < a.length; i25++) {
    const ps27: P[] = [{ u: Math.tanh((Math.pow(a[(i25 + 2 * i25 + 1) % 2], 2) - Math.min(a[(i25 + 1) % 2], 2))), v: 0.5, w: 0.25 }, { u: Math.tanh((Math.pow(a[(i25 + 2 * i25 + 1) % 2], 2) - Math.min(a[(i25 + 1) % 2], 2))), v: 1, w: 0.25 }, { u: Math.tanh((Math.pow(a[(i25 + 2 * i25 + 1) % 2], 2) - Math.min(a[(i25 + 1) % 2], 2))), v: 2, w: 0.25 }];
    ps27[i25 % 3].w = Math.tanh((Math.pow(a[(i25 + 2 * i25 + 1) % 2], 2) - Math.min(a[(i25 + 1) % 2], 2)));
  }
  let fo28 = 0;
  for (let k29 = 0; k29 < 2; k29++) {
    let k30 = 0;
    while (k30 < 2) {
      k30++;
      let k31 = 0;
      while (k31 < 2 && fo28 <= (Math.sign(fo28) * a[1])) {
        k31++;
      }
      fo28 += 0.25 * Math.atan((Math.log1p((-1) * (-1)) / (1 + Math.expm1(Math.tanh(0)) * Math.expm1(Math.tanh(0)))));
    }
  }
  let js33 = 0;
  let k34 = 0;
  while (k34 < 2) {
    k34++;
    const ps36: P[] = [{ u: Math.atan((0.1 - (0.1 / (1 + Math.LOG10E * Math.LOG10E)))), v: 0.5, w: 1 }, { u: -0.5, v: Math.tanh((0.1 - (0.1 / (1 + Math.LOG10E * Math.LOG10E)))), w: 2 }];
    const t35 = ps36.slice(1);
    t35[0].u = Math.sin((0.1 - (0.1 / (1 + Math.LOG10E * Math.LOG10E))));
    js33 = Math.tanh(js33 + ps36[1].u * t35[0].v);
  }
  let ts37 = 0;
  for (let k38 = 0; k38 < 2; k38++) {
    const t39 = new Float64Array(4);
    t39.fill(1);
    const src40 = a.slice(0, 2);
    t39.set(src40, k38);
    ts37 = Math.tanh(ts37 + t39[0] * t39[3] + t39[1] - t39[2]);
  }
  let js41 = 0;
  const t42: P[] = [];
  for (let j43 = 0; j43 < a.length; j43++) t42.push({ u: a[j43] * Math.tanh(0.25), v: 0.25 * a[j43], w: 1 });
  const keep44 = t42[0];
  t42.push({ u: Math.tanh(0.25), v: 0.5, w: 2 });
  t42.pop();
  let f45 = 0.5;
  while (t42.length > 1) {
    const o46 = t42.pop()!;
    f45 = Math.tanh(f45 * o46.u + o46.v);
  }
  keep44.v = keep44.v * f45;
  t42.length = 0;
  js41 = Math.tanh(js41 + keep44.u * keep44.v + f45 + t42.length);
  const t47: number[] = [];
  for (let j48 = 0; j48 < a.length; j48++) {
    t47.push(Math.atan(0.25), t47.length * 0.5);
  }
  js41 = Math.tanh(js41 + t47[0] * t47[3]);
  return a[1] + 0.125 * (a[1] + q14.u) + 0.25 * Math.tanh(fo28) + 0.25 * Math.tanh(js33) + 0.25 * Math.tanh(ts37) + 0.25 * Math.tanh(js41);
}
