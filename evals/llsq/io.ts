import { evalFn, field, int, vec, type EvalIO } from '../common.js';
import { llsq } from './objective.js';

export interface LlsqArgs {
  x: number[];
  n: number;
}

export function prepare(input: unknown): LlsqArgs {
  const x = vec(field(input, 'x'), 'x');
  const n = int(field(input, 'n'), 'n');
  if (n < 2) throw new Error('llsq: n must be >= 2');
  return { x, n };
}

export const io: EvalIO<LlsqArgs> = {
  name: 'llsq',
  prepare,
  primal: {
    primal: evalFn((a: LlsqArgs) => llsq(a.x, a.n), (r: number) => r),
  },
  // gradient: d llsq(x, n) / d x, number[m]
  derivatives: ['gradient'],
};
