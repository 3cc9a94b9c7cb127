// ba: `jacobian` = the sparse Jacobian of all residuals with respect to (cameras, points, weights), by
// tsad's block Jacobian of baObjective itself (src/api/blocks.ts): its two loops run over independent
// observations, so each iteration's 2 × 15 block (vector reverse mode, two adjoints a value) and each
// weight's 1 × 1 block are computed and laid out in CSR by tsad; rows and columns come from the indices
// the iterations wrote and read. The eval's compressed view (first 30 + last entry of each array) is
// returned.
import { blockJacobian } from '../../src/api/blocks.js';
import { csrOf, type SparseMatrix } from '../../src/api/sparse.js';
import { evalSource } from '../tsad.js';
import type { BaArgs } from './io.js';

/** The full Jacobian in CSR form: 3p rows, 11n + 3m + p columns, 31p stored entries. */
export interface BaCsr {
  rowptr: Int32Array;
  colidx: Int32Array;
  vals: Float64Array;
}

let compiled: ((...args: unknown[]) => SparseMatrix) | undefined;

function baJacobian(): (...args: unknown[]) => SparseMatrix {
  if (compiled) return compiled;
  const r = blockJacobian({ 'ba.ts': evalSource('ba') }, { head: 'baObjective', wrt: ['cams', 'points', 'weights'], of: ['reprojErr', 'wErr'], reuseValues: true });
  if ('refused' in r) throw new Error(`tsad: no block Jacobian of baObjective: ${r.refused}`);
  return (compiled = r.jacobian);
}

/** Builds the whole Jacobian (the timed work). */
export function jacobianCsr(a: BaArgs): BaCsr {
  const M = baJacobian()(a.cams, a.points, a.weights, a.features, a.obs, a.reprojErr, a.wErr);
  const { rowPtr, cols, values } = csrOf(M);
  return { rowptr: rowPtr, colidx: cols, vals: values };
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

export function jacobian(a: BaArgs): { rows: number[]; cols: number[]; vals: number[] } {
  return jacobianJson(jacobianCsr(a));
}

export const derivatives = {
  jacobian: (a: BaArgs): unknown => jacobian(a),
};
