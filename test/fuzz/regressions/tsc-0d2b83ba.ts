// Shrunk by the fuzzer (npm run fuzz): tsc — generated TypeScript fails tsc --strict: line 436: Type 'null' is not assignable to type 'void'.; line 437: This comparison appears to be unintentional because the types 'number | null' and 'void' hav
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

export function g0(x0: number): number | null {
  if (x0 > 1.25) return null;
  return Math.tanh(0.5);
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

  push(x: number): void {
    this.pos = 0.5 * (this.pos + Math.tanh(x));
  }

  weigh(xs: readonly number[]): number {
    return xs.reduce((s, x) => s + this.k * Math.tanh(x * this.pos), 0);
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

export function f(x: number): number {
  const maybe0 = g0(x);
  let ex1 = 0;
  let t2 = 0;
  let u3 = 0;
  const w4: number[] = [0.5, 1];
  ex1 += (t2 = Math.tanh((maybe0 === null ? x : maybe0))) * t2;
  u3 = t2 = 0.5 * Math.sin(0.5);
  ex1 += u3 * (u3 += t2) + (t2 *= 0.5) + (w4[0] = Math.tanh((maybe0 === null ? x : maybe0))) * (w4[1] += w4[0]);
  let cl5 = 0;
  const bd6 = new Body(Math.tanh(0.5), 0.75);
  bd6.speed = 0.5;
  bd6.step(0.25);
  const bd7 = Body.at(bd6.pos + cl5);
  bd7.step(0.5);
  cl5 = Math.tanh(cl5 + bd6.energy * bd7.energy);
  bd7.push(cl5);
  const bd9 = new Drift(bd7.pos, 0.5);
  bd9.step(0.25);
  cl5 = Math.tanh(cl5 + bd9.energy);
  let cu10 = 0;
  cu10 = Math.tanh(cu10 + cdSoftplus(Math.tanh(0.5), 0.75 + 0.25 * Math.tanh(0.5)));
  cu10 = cu10 + cdRank([cu10, 0.5], Math.tanh(0.5)) * cu10;
  return 0.5 + 0.25 * Math.tanh(ex1) + 0.25 * Math.tanh(cl5) + 0.25 * Math.tanh(cu10);
}
