// Shrunk by the fuzzer (npm run fuzz): tsc — generated TypeScript fails tsc --strict: line 43: Property 'z' does not exist on type '{ u: number; v: number; w: number; }'.; line 64: Property 'z' does not exist on type '{ u: number; v: number; w: 
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

export function f(p: P): number {
  const pz0 = p.z !== undefined ? p.z * 0.5 : 0.25;
  let st1: P = { u: Math.tanh(0.5), v: 0.5, w: 0.5 };
  st1.w = 0.5 * Math.tanh(0.5);
  st1 = { u: st1.u + 0.1 * st1.v, v: st1.v - 0.1 * Math.sin(st1.u) + 0.1 * Math.tanh(0.5), w: st1.w };
  const q2: P = 0.5 > 0.25 ? { u: Math.sin(0.5), v: Math.atan(0.5), w: 0.5 } : { u: 0.5, v: Math.sin(0.5), w: 1 };
  let or3 = 0;
  const { w: h4, z: z6, ...r5 } = q2;
  r5.u = Math.sin(h4 * r5.v);
  or3 = Math.tanh(or3 + h4 * r5.u + q2.u - r5.v);
  let cu7 = 0;
  cu7 = Math.tanh(cu7 + cdSoftplus(Math.tanh(0.5), 0.75 + 0.25 * Math.tanh(0.5)));
  cu7 = cu7 + cdRank([cu7, 0.5], Math.tanh(0.5)) * cu7;
  return 0.5 + 0.25 * Math.tanh(or3) + 0.25 * Math.tanh(cu7);
}
