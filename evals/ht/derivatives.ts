// ht: `jacobian` = the dense 3P × 26 (simple) or 3P × 28 (complicated) Jacobian of the residuals.
// Few inputs, many outputs: tsad's vector tangent with one direction per column.
//   simple:      directions 0..25 = theta[0..25];
//   complicated: directions 2..27 = theta[0..25], direction 0 / 1 seeds every us[i][0] / us[i][1]
//                at once (each residual triple depends only on its own us[i], so the 2P us-columns
//                compress to two; ht.md).
import { toRows } from '../common.js';
import { derive, evalSource, identitySeed } from '../tsad.js';
import type { HandModel } from './objective.js';
import type { HtArgs } from './io.js';

type SimpleDv = (
  theta: number[], thetad: number[], model: HandModel, correspondences: number[], points: number[][],
  err: Float64Array, errd: Float64Array, nbdirs: number,
) => void;
type ComplicatedDv = (
  theta: number[], thetad: number[], us: number[][], usd: number[][],
  model: HandModel, correspondences: number[], points: number[][], err: Float64Array, errd: Float64Array, nbdirs: number,
) => void;

// (the heads write the residuals into `err`, and their tangents into `errd`: the Jacobian)
function simpleDv(sparse: boolean): SimpleDv {
  return derive(`ht/htObjectiveSimpleInto/${sparse ? 'sparse-vector' : 'vector'}`, () => ({ 'ht.ts': evalSource('ht') }), {
    head: 'htObjectiveSimpleInto',
    wrt: ['theta'],
    of: ['err'],
    modes: ['vector'],
    sparseVector: sparse,
  }).fn<SimpleDv>('htObjectiveSimpleInto_dv', ['theta', 'thetad', 'model', 'correspondences', 'points', 'err', 'errd', 'nbdirs']);
}

function complicatedDv(sparse: boolean): ComplicatedDv {
  return derive(`ht/htObjectiveComplicatedInto/${sparse ? 'sparse-vector' : 'vector'}`, () => ({ 'ht.ts': evalSource('ht') }), {
    head: 'htObjectiveComplicatedInto',
    wrt: ['theta', 'us'],
    of: ['err'],
    modes: ['vector'],
    sparseVector: sparse,
  }).fn<ComplicatedDv>('htObjectiveComplicatedInto_dv', ['theta', 'thetad', 'us', 'usd', 'model', 'correspondences', 'points', 'err', 'errd', 'nbdirs']);
}

/**
 * The residuals' and the Jacobian's buffers, reused from call to call as a C++ tool reuses its output
 * (a fresh Jacobian of 100 000 points, 67 MB, costs more in page faults than computing it): a result
 * holds until the next call of jacobianFlat with the same sparse flag.
 */
const buffers = new Map<boolean, { err: Float64Array; jac: Float64Array }>();

function buffersFor(sparse: boolean, rows: number, cols: number): { err: Float64Array; jac: Float64Array } {
  let b = buffers.get(sparse);
  if (!b || b.err.length !== rows || b.jac.length !== rows * cols) buffers.set(sparse, (b = { err: new Float64Array(rows), jac: new Float64Array(rows * cols) }));
  return b;
}

/**
 * The Jacobian, flat row-major [3P × C] (C = 26 or 28); `sparse`: by the sparse vector mode (each
 * vertex's skinning runs over the two to four directions of the bones that weigh on it, issue 18), else
 * the dense one. The array is reused by the next call with the same `sparse` (buffersFor).
 */
export function jacobianFlat(a: HtArgs, sparse = true): { jac: Float64Array; rows: number; cols: number } {
  const rows = 3 * a.correspondences.length;
  if (!a.complicated) {
    const nb = 26;
    const { err, jac } = buffersFor(sparse, rows, nb);
    simpleDv(sparse)(a.theta, identitySeed(26, nb), a.model, a.correspondences, a.points, err, jac, nb);
    return { jac, rows, cols: nb };
  }
  const nb = 28;
  // (every point's seed is the same row, read and never written by the tangent: one array for all)
  const seedRow = new Array<number>(2 * nb).fill(0);
  seedRow[0 * nb + 0] = 1;
  seedRow[1 * nb + 1] = 1;
  const usd = a.us.map(() => seedRow);
  const { err, jac } = buffersFor(sparse, rows, nb);
  complicatedDv(sparse)(a.theta, identitySeed(26, nb, 2), a.us, usd, a.model, a.correspondences, a.points, err, jac, nb);
  return { jac, rows, cols: nb };
}

/** number[3P][C] (the eval's JSON layout) */
export function jacobian(a: HtArgs): number[][] {
  const j = jacobianFlat(a);
  return toRows(j.jac, j.rows, j.cols);
}

export const derivatives = {
  jacobian: (a: HtArgs): unknown => jacobian(a),
};
