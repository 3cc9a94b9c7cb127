import { evalFn, field, int, toList, vec, type EvalIO } from '../common.js';
import { ode } from './objective.js';

export interface OdeArgs {
  x: number[];
  s: number;
}

export function prepare(input: unknown): OdeArgs {
  const x = vec(field(input, 'x'), 'x');
  const s = int(field(input, 's'), 's');
  if (x.length < 1) throw new Error('ode: x must be non-empty');
  if (s < 1) throw new Error('ode: s must be >= 1');
  return { x, s };
}

export const io: EvalIO<OdeArgs> = {
  name: 'ode',
  prepare,
  primal: {
    primal: evalFn((a: OdeArgs) => ode(a.x, a.s), (r: Float64Array) => toList(r)),
  },
  // gradient: d odeLast(x, s) / d x = d Y[n-1] / d x, number[n]
  derivatives: ['gradient'],
};
