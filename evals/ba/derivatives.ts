// ba: `jacobian` = the sparse Jacobian of all residuals with respect to (cameras, points, weights).
// Per observation, the dense 2×15 Jacobian of reprojError(cam, X, w, feat) with respect to
// (cam[0..10], X[0..2], w) comes from two tsad adjoint sweeps (one per residual; the default, about
// 5× faster here) or from tsad's vector tangent with 15 directions; the weight rows d(1 - w²)/dw
// from tsad's tangent of weightError. Everything is scattered into CSR (ba.md) and the eval's
// compressed view (first 30 + last entry of each array) is returned.
import { derive, evalSource, identitySeed } from '../tsad.js';
import type { BaArgs } from './io.js';

const NDIR = 15; // 11 camera parameters, 3 point coordinates, 1 weight

type ReprojDv = (
  cam: number[], camd: number[], X: number[], Xd: number[], w: number, wd: Float64Array, feat: number[], nbdirs: number,
) => [number[], number[]];
type ReprojB = (cam: number[], camb: number[], X: number[], Xb: number[], w: number, feat: number[], resultb: number[]) => number;
type WeightD = (w: number, wd: number) => [number, number];

/** How the per-observation 2×15 Jacobian is computed. */
export type BaMethod = 'reverse' | 'vector';

function reprojDv(): ReprojDv {
  return derive('ba/reprojError/vector', () => ({ 'ba.ts': evalSource('ba') }), {
    head: 'reprojError',
    wrt: ['cam', 'X', 'w'],
    modes: ['vector'],
  }).fn<ReprojDv>('reprojError_dv', ['cam', 'camd', 'X', 'Xd', 'w', 'wd', 'feat', 'nbdirs']);
}

function reprojB(): ReprojB {
  return derive('ba/reprojError/reverse', () => ({ 'ba.ts': evalSource('ba') }), {
    head: 'reprojError',
    wrt: ['cam', 'X', 'w'],
    modes: ['reverse'],
  }).fn<ReprojB>('reprojError_b', ['cam', 'camb', 'X', 'Xb', 'w', 'feat', 'resultb']);
}

function weightD(): WeightD {
  return derive('ba/weightError/tangent', () => ({ 'ba.ts': evalSource('ba') }), {
    head: 'weightError',
    wrt: ['w'],
    modes: ['tangent'],
  }).fn<WeightD>('weightError_d', ['w', 'wd']);
}

/** The full Jacobian in CSR form: 3p rows, 11n + 3m + p columns, 31p stored entries. */
export interface BaCsr {
  rowptr: Int32Array;
  colidx: Int32Array;
  vals: Float64Array;
}

/**
 * Fills vals[15*(2i+r) + k] = d e_{i,r} / d (direction k) for every observation i; directions: camera
 * parameters 0..10, point coordinates 11..13, weight 14.
 */
function reprojRows(a: BaArgs, vals: Float64Array, method: BaMethod): void {
  const p = a.p;
  if (method === 'vector') {
    const dv = reprojDv();
    const camd = identitySeed(11, NDIR, 0);
    const Xd = identitySeed(3, NDIR, 11);
    const wd = new Float64Array(NDIR);
    wd[14] = 1;
    for (let i = 0; i < p; i++) {
      const [, jac] = dv(a.cams[a.obs[2 * i]], camd, a.points[a.obs[2 * i + 1]], Xd, a.weights[i], wd, a.features[i], NDIR);
      for (let k = 0; k < 2 * NDIR; k++) vals[30 * i + k] = jac[k];
    }
    return;
  }
  const b = reprojB();
  const camb = new Array<number>(11).fill(0);
  const Xb = [0, 0, 0];
  const seeds = [
    [1, 0],
    [0, 1],
  ];
  for (let i = 0; i < p; i++) {
    const cam = a.cams[a.obs[2 * i]];
    const X = a.points[a.obs[2 * i + 1]];
    for (let r = 0; r < 2; r++) {
      camb.fill(0);
      Xb.fill(0);
      const wb = b(cam, camb, X, Xb, a.weights[i], a.features[i], seeds[r]);
      const base = 15 * (2 * i + r);
      for (let k = 0; k < 11; k++) vals[base + k] = camb[k];
      for (let k = 0; k < 3; k++) vals[base + 11 + k] = Xb[k];
      vals[base + 14] = wb;
    }
  }
}

/** Builds the whole Jacobian (the timed work). */
export function jacobianCsr(a: BaArgs, method: BaMethod = 'reverse'): BaCsr {
  const wd1 = weightD();
  const { n, m, p } = a;
  const rowptr = new Int32Array(3 * p + 1);
  const colidx = new Int32Array(31 * p);
  const vals = new Float64Array(31 * p);
  reprojRows(a, vals, method);
  for (let i = 0; i < p; i++) {
    const c = a.obs[2 * i];
    const pt = a.obs[2 * i + 1];
    for (let r = 0; r < 2; r++) {
      const row = 2 * i + r;
      const base = 15 * row;
      rowptr[row + 1] = base + 15;
      for (let k = 0; k < 11; k++) colidx[base + k] = 11 * c + k;
      for (let k = 0; k < 3; k++) colidx[base + 11 + k] = 11 * n + 3 * pt + k;
      colidx[base + 14] = 11 * n + 3 * m + i;
    }
  }
  for (let i = 0; i < p; i++) {
    const row = 2 * p + i;
    const at = 30 * p + i;
    rowptr[row + 1] = at + 1;
    colidx[at] = 11 * n + 3 * m + i;
    vals[at] = wd1(a.weights[i], 1)[1];
  }
  return { rowptr, colidx, vals };
}

function firstAndLast(v: ArrayLike<number>): number[] {
  const out: number[] = [];
  for (let i = 0; i < Math.min(30, v.length - 1); i++) out.push(v[i]);
  out.push(v[v.length - 1]);
  return out;
}

/** The eval's output: first 30 entries plus the last one of each CSR array. */
export function jacobianJson(j: BaCsr): { rows: number[]; cols: number[]; vals: number[] } {
  return { rows: firstAndLast(j.rowptr), cols: firstAndLast(j.colidx), vals: firstAndLast(j.vals) };
}

export function jacobian(a: BaArgs, method: BaMethod = 'reverse'): { rows: number[]; cols: number[]; vals: number[] } {
  return jacobianJson(jacobianCsr(a, method));
}

export const derivatives = {
  jacobian: (a: BaArgs): unknown => jacobian(a),
};
