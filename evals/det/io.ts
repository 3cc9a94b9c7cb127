import { evalFn, field, int, vec, type EvalIO } from '../common.js';
import { det } from './objective.js';

export interface DetArgs {
  A: number[];
  ell: number;
}

export function prepare(input: unknown): DetArgs {
  const ell = int(field(input, 'ell'), 'ell');
  const A = vec(field(input, 'A'), 'A', ell * ell);
  return { A, ell };
}

export const io: EvalIO<DetArgs> = {
  name: 'det',
  prepare,
  primal: {
    primal: evalFn((a: DetArgs) => det(a.A, a.ell), (r: number) => r),
  },
  // gradient: d det(A) / d A, number[ell*ell] row-major
  derivatives: ['gradient'],
};
