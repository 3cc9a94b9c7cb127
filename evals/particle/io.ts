import { field, num, type EvalIO } from '../common.js';

export interface ParticleArgs {
  /** starting value of the control parameter */
  w: number;
}

export function prepare(input: unknown): ParticleArgs {
  return { w: num(field(input, 'w'), 'w') };
}

export const io: EvalIO<ParticleArgs> = {
  name: 'particle',
  prepare,
  // no primal function: every output needs nested derivatives (J needs grad_p potential)
  primal: {},
  // ff/fr/rf/rr → number: the final w of the gradient descent
  derivatives: ['ff', 'fr', 'rf', 'rr'],
};
