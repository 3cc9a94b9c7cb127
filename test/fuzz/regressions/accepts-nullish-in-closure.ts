// Found by npm run fuzz -- --count 5000 --seed 261126 (program #1056), not shrunk: `??` on a nullable parameter
// read inside an arrow passed to a helper (line 233) was refused: TypeScript types it `any` there
export interface P {
  u: number;
  v: number;
  w: number;
}

export interface Q {
  a: number[];
  s: number;
}

export function g0(x0: number, ro1: readonly number[], x2: number): number[][] {
  return [[Math.atan(Math.hypot(ro1[1], (x0 && x2), x2)), 0.5], [2, 1]];
}

export function g1(x0: number, v1: number[]): number[] {
  const M0 = g0(Math.cbrt(0.5 + v1[0] * v1[0]), [Math.cbrt(0.5 + v1[0] * v1[0]), Math.acosh(1.5 + (-v1[0]) * (-v1[0])), 2, 0.25], Math.acosh(1.5 + (-v1[0]) * (-v1[0])));
  M0[1][0] /= 1 + Math.abs(Math.tanh(0.25));
  for (let j1 = 0; j1 < 1; j1++) v1[j1] = Math.tanh(0.5);
  return v1;
}

export function g2(ro0: readonly number[], v1: number[]): number {
  const t0: number[] = new Array(1).fill(0.25);
  const t1 = v1;
  t1[0] = Math.atan(Math.cos(Math.min(1.5, 0.5)));
  return Math.tanh((-2));
}

export class Body {
  vel = 0;
  constructor(public pos: number, public k: number) {}

  step(dt: number): void {
    this.vel = Math.tanh(this.vel - this.k * this.pos * dt);
    this.pos += this.vel * dt;
  }

  get energy(): number {
    return 0.5 * this.vel * this.vel + 0.5 * this.k * this.pos * this.pos;
  }

  set speed(v: number) {
    this.vel = Math.sin(v);
  }

  scaled(s: number): Body {
    return new Body(this.pos * s, this.k);
  }

  static at(x: number): Body {
    return new Body(Math.tanh(x), 0.5);
  }
}

export class Damped extends Body {
  constructor(pos: number, k: number, public c: number) {
    super(pos, k);
  }

  settle(dt: number): void {
    super.step(dt);
    this.vel *= this.c;
  }
}

export class Drift extends Body {}

export function cdSoftplus(u: number, t: number): number {
  return t * Math.log1p(Math.exp(u / t));
}

export function cdSoftplus_jvp(u: number, ud: number, t: number, td: number): [number, number] {
  const z = u / t;
  const s = 1 / (1 + Math.exp(-z));
  const y = t * Math.log1p(Math.exp(z));
  return [y, s * ud + (y / t - s * z) * td];
}

export function cdSoftplus_vjp(u: number, t: number, yb: number): [number, number] {
  const z = u / t;
  const s = 1 / (1 + Math.exp(-z));
  const y = t * Math.log1p(Math.exp(z));
  return [s * yb, (y / t - s * z) * yb];
}

// $ad custom-derivative tangent=cdDotTangent adjoint=cdDotAdjoint
export function cdDot(a: number[], b: number[]): number {
  let s = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) s += a[i] * b[i];
  return s;
}

export function cdDotTangent(a: number[], ad: number[], b: number[], bd: number[]): [number, number] {
  let s = 0;
  let sd = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    s += a[i] * b[i];
    sd += ad[i] * b[i] + a[i] * bd[i];
  }
  return [s, sd];
}

export function cdDotAdjoint(a: number[], ab: number[], b: number[], bb: number[], yb: number): void {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    ab[i] += b[i] * yb;
    bb[i] += a[i] * yb;
  }
}

// $ad passive
export function cdRank(a: number[], v: number): number {
  let c = 0;
  for (let i = 0; i < a.length; i++) if (a[i] < v) c++;
  return 0.25 * c;
}

function twice(g: (v: number) => number, v: number): number {
  return 0.5 * g(g(v) * 0.5);
}
function euler(rhs: (s: number[]) => number[], s0: number[], h: number, n: number): number[] {
  let s = s0.slice();
  for (let k = 0; k < n; k++) {
    const d = rhs(s);
    s = s.map((v, i) => v + h * d[i]);
  }
  return s;
}
function decayRhs(s: number[]): number[] {
  return s.map((v) => -0.5 * v);
}

export function f(a: number[], y: number | undefined, b: number[], out: number[]): void {
  const st1: [number, number] = [(-0.5), 0.5];
  let st0: [number, number] = [Math.atan(Math.max(...b)), 2];
  st0 = st1;
  const t2 = out;
  t2[1] = Math.tanh(((((1 < 0.5 ? (-0.5) : 0.25) * 4) | 0) * 0.25));
  hv3 = Math.atan((-Math.max(-Infinity, a[1], 0)));
  for (var hk4 = 0; hk4 < 4; hk4++) {
    var hv3;
    hv3 = Math.tanh(hv3 * 0.75 + (-(-Math.max(-Infinity, a[1], 0))));
  }
  let fo5 = 0;
  for (let k6 = 0; k6 < 2; k6++) {
    let k7 = 0;
    while (k7 < 2) {
      k7++;
      let k8 = 0;
      while (k8 < 2 && (y ?? fo5) > (-0.5)) {
        k8++;
      }
      fo5 += 0.25 * Math.atan(Math.atan2((hv3 / 3), 0.5 + Math.asinh(0.5) * Math.asinh(0.5)));
    }
  }
  let js10 = 0;
  let k11 = 0;
  while (k11 < 2) {
    k11++;
    const t12 = b.slice(0, 1);
    js10 = Math.tanh(js10 + t12[0] * t12[0]);
  }
  a.fill(Math.tanh((Math.max(out[0], st0[1]) - hv3)));
  js10 = Math.tanh(js10 + a[0] * a[1]);
  let ta14 = 0;
  for (let k15 = 0; k15 < 2; k15++) {
    let k16 = 0;
    while (k16 < 2) {
      k16++;
      const t17 = new Float32Array(2);
      for (let j18 = 0; j18 < 2; j18++) {
        t17[j18] = j18 * 0.5;
      }
      ta14 = Math.tanh(ta14 + t17[1] * t2[0] + t17[0]);
    }
  }
  let k19 = 0;
  while (k19 < 2) {
    k19++;
    const t20 = new Int8Array(2).fill(1);
    for (let j21 = 0; j21 < 2; j21++) {
      if (b[j21] < 0) t20[j21] = -1;
    }
    ta14 = Math.tanh(ta14 + t20[0] * b[0] + t20[1] * b[1]);
  }
  let rs22 = 0;
  for (let k23 = 0; k23 < 2; k23++) {
    const tp26: [number, number, number] = [Math.tanh((y === void 0 ? hv3 : y)), 1.5, 1.5];
    let [h24, ...r25] = tp26;
    r25[0] = Math.sin(h24 + r25[1]);
    rs22 = Math.tanh(rs22 + h24 * r25[0] - r25[1]);
  }
  for (let k27 = 0; k27 < 2; k27++) {
    const [h28, ...r29] = t2;
    r29[0] = Math.sin(h28 * r29[0]);
    rs22 = Math.tanh(rs22 + h28 * r29[0] + r29[0]);
  }
  let cl30 = 0;
  for (let k31 = 0; k31 < 2; k31++) {
    const bd32 = new Body(Math.tanh((Math.sqrt(1 + hv3 * hv3) / 3)), 0.75);
    bd32.speed = (st0[(k31 + 1) % st0.length] ** 2);
    bd32.step(0.25);
    const bd33 = Body.at(bd32.pos + cl30);
    bd33.step(0.5);
    cl30 = Math.tanh(cl30 + bd32.energy * bd33.energy);
    const bd35 = new Drift(bd33.pos, 0.5);
    bd35.step(0.25);
    cl30 = Math.tanh(cl30 + bd35.energy);
  }
  let or36 = 0;
  const o39: Q = { a: [Math.sin(Math.sign(Math.SQRT2)), 1], s: 2 };
  const { s: h37, ...r38 } = o39;
  r38.a[0] = Math.atan(h37 * r38.a[1]);
  or36 = Math.tanh(or36 + h37 * o39.a[0] + r38.a[0]);
  let ts40 = 0;
  let k41 = 0;
  while (k41 < 2) {
    k41++;
    const t42 = new Float64Array(4);
    t42.fill(0.5);
    t42[0] = Math.tanh(hv3);
    t42.set(t42.subarray(0, 2), 1);
    ts40 = Math.tanh(ts40 + t42[0] * t42[3] + t42[1] - t42[2]);
  }
  let cu43 = 0;
  cu43 = Math.tanh(cu43 + cdDot(t2, a) * Math.sin(hv3));
  cu43 = cu43 + cdRank(t2, cu43) * cu43;
  let cl44 = 0;
  for (let k45 = 0; k45 < 2; k45++) {
    let k46 = 0;
    while (k46 < 2) {
      k46++;
      cl44 = Math.tanh(cl44 + twice((x47) => Math.tanh(Math.tanh(x47 * (!((Array.isArray(y) ? hv3 : (y ?? hv3)) < out[(k45 + 0) % out.length]) ? a[k45] : (k45 * 0.5)))), a[1]));
    }
  }
  for (let j49 = 0; j49 < out.length; j49++) {
    out[j49] = (((((hv3 % 1.5) * 4) | 0) * 0.25) + (g2([hv3, a[1 - j49], b[1], 0.25], [hv3, a[1 - j49], b[1]]) * (Math.abs((j49 * 0.5)) ** 1.5))) + 0.25 * Math.tanh(fo5) + 0.25 * Math.tanh(js10) + 0.25 * Math.tanh(ta14) + 0.25 * Math.tanh(rs22) + 0.25 * Math.tanh(cl30) + 0.25 * Math.tanh(or36) + 0.25 * Math.tanh(ts40) + 0.25 * Math.tanh(cu43) + 0.25 * Math.tanh(cl44);
  }
}
