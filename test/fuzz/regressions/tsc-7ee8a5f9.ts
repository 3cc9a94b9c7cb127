// Shrunk by the fuzzer (npm run fuzz): tsc — generated TypeScript fails tsc --strict: line 291: Property 'w' does not exist on type 'never'.; line 307: Property 'w' does not exist on type 'never'.; line 319: Property 'w' does not exist on type '
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

export function f(y: number | undefined, p: P): number {
  const pz0 = p.z !== undefined ? p.z * 0.5 : 0.25;
  let s1 = Math.tanh(0.5);
  let fo2 = 0;
  const M3: number[][] = [[Math.tanh(Math.min(('u' in p ? p.u : pz0), p.w)), 0.5], [-0.25, 1]];
  let k4 = 0;
  while (k4 < 2) {
    k4++;
    const M5 = M3;
    M5[0][1] = Math.tanh(Math.min(('u' in p ? p.u : pz0), p.w));
  }
  for (let k6 = 0; k6 < 2; k6++) {
    let k7 = 0;
    while (k7 < 2) {
      k7++;
      const M8 = M3;
      M8[0][1] = Math.tanh(Math.min(('u' in p ? p.u : pz0), p.w));
    }
  }
  fo2 += 0.25 * M3[0][0] * M3[1][1];
  let cu9 = 0;
  cu9 = Math.tanh(cu9 + cdSoftplus(Math.tanh(0.5), 0.75 + 0.25 * Math.tanh(0.5)));
  cu9 = cu9 + cdRank([cu9, 0.5], Math.tanh(0.5)) * cu9;
  return 0.5 + 0.25 * Math.tanh(fo2) + 0.25 * Math.tanh(cu9);
}
