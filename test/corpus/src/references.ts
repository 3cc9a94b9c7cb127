/**
 * Reference semantics: arrays and objects rebound to fresh literals built from their old value,
 * rows swapped or stored by reference (pivoting eliminations), two variables holding one array,
 * objects with array fields, arrays of objects, helpers returning fresh arrays.
 */

export interface State {
  pos: number;
  vel: number;
}

export interface Body {
  x: number[];
  m: number;
}

/** Explicit integrator whose state is a small array rebuilt every step. */
export function rebindIntegrator(a: number[]): number {
  let s = [a[0], a[1]];
  for (let i = 0; i < 3; i++) s = [s[0] + 0.1 * s[1], s[1] - 0.1 * Math.sin(s[0])];
  return s[0] * s[1];
}

export function rebindPair(a: number[]): number {
  let s = [a[0], a[1]];
  s = [s[0] * 2, s[1] + s[0]];
  return s[0] + s[1];
}

export function rebindObject(p: number, v: number): number {
  let st: State = { pos: p, vel: v };
  for (let k = 0; k < 4; k++) {
    st = { pos: st.pos + 0.1 * st.vel, vel: st.vel - 0.1 * st.pos };
  }
  return st.pos * st.vel;
}

export function rebindMatrix(a: number[][]): number {
  let m = [[a[0][0], a[0][1]], [a[1][0], a[1][1]]];
  for (let k = 0; k < 2; k++) {
    m = [[m[0][0] * m[1][1], m[0][1]], [m[1][0], m[1][1] + m[0][0]]];
  }
  return m[0][0] + 2 * m[0][1] + 3 * m[1][0] + 4 * m[1][1];
}

export function rebindTuple(x: number, y: number): number {
  let t: [number, number] = [x, y];
  for (let k = 0; k < 3; k++) t = [t[1], t[0] * t[1]];
  return t[0] + t[1];
}

export function swapRowsInPlace(A: number[][]): number {
  const t = A[0];
  A[0] = A[1];
  A[1] = t;
  return A[0][0] * 2 + A[1][1] * 3 + A[0][1];
}

export function copyRows(A: number[][]): number[][] {
  const B: number[][] = [];
  for (let i = 0; i < A.length; i++) B.push(A[i].slice());
  return B;
}

export function swapRowsOfCopy(A: number[][]): number {
  const B = copyRows(A);
  const t = B[0];
  B[0] = B[2];
  B[2] = t;
  let s = 0;
  for (let i = 0; i < B.length; i++) s += (i + 1) * B[i][0] * B[i][1];
  return s;
}

export function rowStore(M: number[][]): number {
  M[0] = M[1];
  M[0][0] = M[0][0] * 3;
  return M[0][0] + M[1][0] + M[1][1] * M[2][1];
}

export function aliasWrites(a: number[]): number {
  const b = a;
  b[0] = b[0] * b[1];
  return a[0] + b[1] * a[0];
}

/** Determinant by LU with partial pivoting, rows swapped by reference. */
export function luDet(A0: number[][]): number {
  const n = A0.length;
  const A = copyRows(A0);
  let det = 1;
  for (let k = 0; k < n; k++) {
    let p = k;
    for (let i = k + 1; i < n; i++) if (Math.abs(A[i][k]) > Math.abs(A[p][k])) p = i;
    if (p !== k) {
      const t = A[k];
      A[k] = A[p];
      A[p] = t;
      det = -det;
    }
    det *= A[k][k];
    for (let i = k + 1; i < n; i++) {
      const f = A[i][k] / A[k][k];
      for (let j = k; j < n; j++) A[i][j] -= f * A[k][j];
    }
  }
  return det;
}

/** Solve A x = b by Gaussian elimination with partial pivoting; swaps rows of A and entries of b. */
export function luSolve(A0: number[][], b0: number[]): number[] {
  const n = A0.length;
  const A = copyRows(A0);
  const b = b0.slice();
  for (let k = 0; k < n; k++) {
    let p = k;
    for (let i = k + 1; i < n; i++) if (Math.abs(A[i][k]) > Math.abs(A[p][k])) p = i;
    const t = A[k];
    A[k] = A[p];
    A[p] = t;
    const tb = b[k];
    b[k] = b[p];
    b[p] = tb;
    for (let i = k + 1; i < n; i++) {
      const f = A[i][k] / A[k][k];
      for (let j = k; j < n; j++) A[i][j] -= f * A[k][j];
      b[i] -= f * b[k];
    }
  }
  const x: number[] = [];
  for (let i = 0; i < n; i++) x.push(0);
  for (let i = n - 1; i >= 0; i--) {
    let s = b[i];
    for (let j = i + 1; j < n; j++) s -= A[i][j] * x[j];
    x[i] = s / A[i][i];
  }
  return x;
}

export function fieldRebind(b: Body): number {
  for (let k = 0; k < 3; k++) b.x = [b.x[1] * b.m, b.x[0] + b.x[1]];
  return b.x[0] * b.x[1];
}

export function arrayOfObjects(ps: State[], dt: number): number {
  for (let k = 0; k < 2; k++) {
    for (let i = 0; i < ps.length; i++) {
      ps[i] = { pos: ps[i].pos + dt * ps[i].vel, vel: ps[i].vel - dt * ps[i].pos };
    }
  }
  let e = 0;
  for (let i = 0; i < ps.length; i++) e += ps[i].pos * ps[i].vel;
  return e;
}

export function scaled(v: number[], c: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < v.length; i++) out.push(c * v[i]);
  return out;
}

export function helperRebind(v0: number[], c: number): number {
  let v = v0;
  for (let k = 0; k < 3; k++) v = scaled(v, c + v[0]);
  return v[0] + v[1] * v[1];
}

/** gl-matrix style: the helper writes into its argument and returns it (the result is that object). */
export function scaleInPlace(v: number[], c: number): number[] {
  for (let i = 0; i < v.length; i++) v[i] *= c;
  return v;
}

export function returnedArgument(x: number[], c: number): number {
  const y = x.slice();
  const w = scaleInPlace(y, c);
  w[0] = w[0] * w[1];
  return y[0] + w[1] * y[1];
}

export function conditionalRowAlias(A: number[][], x: number): number {
  const B = [A[0].slice(), A[1].slice()];
  const r = x > 0 ? B[0] : B[1];
  r[0] = r[0] * x;
  B[0] = B[1];
  B[1] = r;
  return B[0][0] * B[1][0] + B[1][1];
}

export function rowsRebuiltAndSwapped(A: number[][]): number {
  const M = [A[0].slice(), A[1].slice(), A[2].slice()];
  for (let k = 0; k < 3; k++) {
    M[k] = [M[k][1] * 2, M[k][0] + M[(k + 1) % 3][1]];
    const t = M[0];
    M[0] = M[2];
    M[2] = t;
  }
  let s = 0;
  for (let i = 0; i < 3; i++) s += (i + 1) * M[i][0] * M[i][1];
  return s;
}

/** A parameter overwritten through a second name after its old value was used. */
export function parameterWrittenThroughAlias(b: number[]): number {
  const s0 = Math.sin(1 + b[0]);
  const t = b;
  t[0] = Math.tanh(0.5);
  return s0 + b[0] * t[1] + t[0];
}

export interface Holder {
  a: number[];
  s: number;
}

export function fieldRebuiltFromOld(x: number): number {
  const q: Holder = { a: [Math.tanh(0.5), Math.sin(x)], s: Math.atan(x) };
  q.a[0] = 0.5 * q.a[1] + 0.25;
  q.a = [q.a[1] + 0.5 * q.s, q.a[0] - 0.25 * q.a[1]];
  return x + q.s + q.a[1] * q.a[0];
}

export function swapObjectsInLoop(p: State, q: State): number {
  let a = p;
  let b = q;
  for (let k = 0; k < 3; k++) {
    const t = a;
    a = b;
    b = t;
    a.pos = a.pos * a.vel + b.vel;
  }
  return a.pos * b.vel + a.vel;
}

/** The argument a helper writes into and returns is made for the call (a copy, a literal). */
export function returnedFreshArgument(x: number[], c: number): number {
  const w = scaleInPlace(x.slice(), c);
  w[0] = w[0] * w[1];
  const u = scaleInPlace([x[0], x[1] * c], 2);
  return w[0] + u[1] * w[1];
}
