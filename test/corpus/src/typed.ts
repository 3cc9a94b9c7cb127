/**
 * Float64Array inputs and outputs, `new Float64Array(n)` and `.subarray`.
 */

export function typedDot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) {
    s += a[i] * b[i];
  }
  return s;
}

export function typedScale(a: Float64Array, s: number): Float64Array {
  const out = new Float64Array(a.length);
  for (let i = 0; i < a.length; i++) {
    out[i] = s * a[i] + a[i] * a[i];
  }
  return out;
}

export function subarrayMean(a: Float64Array): number {
  const mid = a.subarray(1, a.length - 1);
  let s = 0;
  for (let i = 0; i < mid.length; i++) {
    s += mid[i];
  }
  return (s / mid.length) * a[0];
}

/** y <- a*x + y, written in place. */
export function typedAxpy(a: number, x: Float64Array, y: Float64Array): void {
  for (let i = 0; i < x.length; i++) {
    y[i] += a * x[i];
  }
}

export function blockNorms(a: Float64Array, block: number): number {
  let total = 0;
  for (let start = 0; start < a.length; start += block) {
    const blk = a.subarray(start, Math.min(start + block, a.length));
    let s = 0;
    for (let i = 0; i < blk.length; i++) s += blk[i] * blk[i];
    total += Math.sqrt(s + 1e-4);
  }
  return total;
}

export function typedCumprod(a: Float64Array): Float64Array {
  const out = new Float64Array(a.length);
  let p = 1;
  for (let i = 0; i < a.length; i++) {
    p *= a[i];
    out[i] = p;
  }
  return out;
}

export function laplacianInto(u: Float64Array, out: Float64Array): void {
  const n = u.length;
  for (let i = 0; i < n; i++) {
    const left = i > 0 ? u[i - 1] : 0;
    const right = i < n - 1 ? u[i + 1] : 0;
    out[i] = left - 2 * u[i] + right;
  }
}

/** Writes through a subarray view alias into the parent array. */
export function subarrayWrite(a: Float64Array, s: number): number {
  const work = new Float64Array(a.length);
  for (let i = 0; i < a.length; i++) work[i] = a[i];
  const tail = work.subarray(2, work.length);
  for (let i = 0; i < tail.length; i++) {
    tail[i] = tail[i] * s + work[0];
  }
  let r = 0;
  for (let i = 0; i < work.length; i++) r += work[i] * work[i];
  return r;
}

export function typedForOf(a: Float64Array): number {
  let s = 0;
  let k = 1;
  for (const v of a) {
    s += Math.sin(v) * k;
    k = -k;
  }
  return s;
}
