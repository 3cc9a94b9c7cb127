// hello: the input is a bare JSON number (no min_runs / min_seconds).
import { evalFn, num, type EvalIO } from '../common.js';
import { square } from './objective.js';

export interface HelloArgs {
  x: number;
}

export function prepare(input: unknown): HelloArgs {
  return { x: num(input, 'hello input') };
}

export const io: EvalIO<HelloArgs> = {
  name: 'hello',
  prepare,
  primal: {
    square: evalFn((a: HelloArgs) => square(a.x), (r: number) => r),
  },
  // double = d square / dx
  derivatives: ['double'],
};
