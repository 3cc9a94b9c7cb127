import { field, vec, type EvalIO } from '../common.js';

export interface SaddleArgs {
  /** starting point of every gradient descent (inner and outer) */
  start: number[];
}

export function prepare(input: unknown): SaddleArgs {
  return { start: vec(field(input, 'start'), 'start', 2) };
}

export const io: EvalIO<SaddleArgs> = {
  name: 'saddle',
  prepare,
  // no primal function: every output needs nested derivatives of saddleF
  primal: {},
  // ff/fr/rf/rr → number[4] = [a*0, a*1, b*0, b*1]
  derivatives: ['ff', 'fr', 'rf', 'rr'],
};
