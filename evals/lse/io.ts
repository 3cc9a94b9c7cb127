import { evalFn, field, vec, type EvalIO } from '../common.js';
import { logsumexp } from './objective.js';

export interface LseArgs {
  x: number[];
}

export function prepare(input: unknown): LseArgs {
  const x = vec(field(input, 'x'), 'x');
  if (x.length < 1) throw new Error('lse: x must be non-empty');
  return { x };
}

export const io: EvalIO<LseArgs> = {
  name: 'lse',
  prepare,
  primal: {
    primal: evalFn((a: LseArgs) => logsumexp(a.x), (r: number) => r),
  },
  // gradient: d logsumexp(x) / d x, number[n]
  derivatives: ['gradient'],
};
