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
  theta: number[], thetad: number[], model: HandModel, correspondences: number[], points: number[][], nbdirs: number,
) => [Float64Array, Float64Array];
type ComplicatedDv = (
  theta: number[], thetad: number[], us: number[][], usd: number[][],
  model: HandModel, correspondences: number[], points: number[][], nbdirs: number,
) => [Float64Array, Float64Array];

function simpleDv(sparse: boolean): SimpleDv {
  return derive(`ht/htObjectiveSimple/vector${sparse ? '/sparse' : ''}`, () => ({ 'ht.ts': evalSource('ht') }), {
    head: 'htObjectiveSimple',
    wrt: ['theta'],
    modes: ['vector'],
    sparseVector: sparse,
  }).fn<SimpleDv>('htObjectiveSimple_dv', ['theta', 'thetad', 'model', 'correspondences', 'points', 'nbdirs']);
}

function complicatedDv(sparse: boolean): ComplicatedDv {
  return derive(`ht/htObjectiveComplicated/vector${sparse ? '/sparse' : ''}`, () => ({ 'ht.ts': evalSource('ht') }), {
    head: 'htObjectiveComplicated',
    wrt: ['theta', 'us'],
    modes: ['vector'],
    sparseVector: sparse,
  }).fn<ComplicatedDv>('htObjectiveComplicated_dv', ['theta', 'thetad', 'us', 'usd', 'model', 'correspondences', 'points', 'nbdirs']);
}

/**
 * The Jacobian, flat row-major [3P × C] (C = 26 or 28); `sparse`: by the sparse vector mode (each
 * vertex's skinning runs over the two to four directions of each bone, issue 18), else the dense one.
 */
export function jacobianFlat(a: HtArgs, sparse = true): { jac: Float64Array; rows: number; cols: number } {
  const rows = 3 * a.correspondences.length;
  if (!a.complicated) {
    const nb = 26;
    const [, jac] = simpleDv(sparse)(a.theta, identitySeed(26, nb), a.model, a.correspondences, a.points, nb);
    return { jac, rows, cols: nb };
  }
  const nb = 28;
  // (every point's seed is the same row, read and never written by the tangent: one array for all)
  const seedRow = new Array<number>(2 * nb).fill(0);
  seedRow[0 * nb + 0] = 1;
  seedRow[1 * nb + 1] = 1;
  const usd = a.us.map(() => seedRow);
  const [, jac] = complicatedDv(sparse)(a.theta, identitySeed(26, nb, 2), a.us, usd, a.model, a.correspondences, a.points, nb);
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
