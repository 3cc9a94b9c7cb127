// lstm: `jacobian` = d lstmObjective / d (mainParams, extraParams), flattened row by row, mainParams
// first, from tsad's adjoint of `lstmObjective` (state and sequence passive).
import { derive, evalSource, zerosRows } from '../tsad.js';
import type { LstmArgs } from './io.js';

type LstmB = (
  mainParams: number[][], mainParamsb: number[][],
  extraParams: number[][], extraParamsb: number[][],
  state: number[][], sequence: number[][], resultb: number,
) => void;

function generated(): LstmB {
  return derive('lstm/lstmObjective/reverse', () => ({ 'lstm.ts': evalSource('lstm') }), {
    head: 'lstmObjective',
    wrt: ['mainParams', 'extraParams'],
    modes: ['reverse'],
  }).fn<LstmB>('lstmObjective_b', ['mainParams', 'mainParamsb', 'extraParams', 'extraParamsb', 'state', 'sequence', 'resultb']);
}

/** The gradient (one adjoint sweep over the time loop), number[8lb + 3b]. */
export function jacobian(a: LstmArgs): number[] {
  const mainb = zerosRows(a.mainParams);
  const extrab = zerosRows(a.extraParams);
  generated()(a.mainParams, mainb, a.extraParams, extrab, a.state, a.sequence, 1);
  const out: number[] = [];
  for (const row of mainb) for (const v of row) out.push(v);
  for (const row of extrab) for (const v of row) out.push(v);
  return out;
}

export const derivatives = {
  jacobian: (a: LstmArgs): unknown => jacobian(a),
};
