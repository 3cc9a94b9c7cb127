import { evalFn, field, int, mat, num, vec, type EvalIO } from '../common.js';
import { gmmObjective } from './objective.js';

export interface GmmArgs {
  alpha: number[];
  mu: number[][];
  q: number[][];
  l: number[][];
  x: number[][];
  m: number;
  gamma: number;
}

export function prepare(input: unknown): GmmArgs {
  const d = int(field(input, 'd'), 'd');
  const k = int(field(input, 'k'), 'k');
  const n = int(field(input, 'n'), 'n');
  const x = mat(field(input, 'x'), 'x', n, d);
  const m = num(field(input, 'm'), 'm');
  const gamma = num(field(input, 'gamma'), 'gamma');
  const alpha = vec(field(input, 'alpha'), 'alpha', k);
  const mu = mat(field(input, 'mu'), 'mu', k, d);
  const q = mat(field(input, 'q'), 'q', k, d);
  const l = mat(field(input, 'l'), 'l', k, (d * (d - 1)) / 2);
  return { alpha, mu, q, l, x, m, gamma };
}

export const io: EvalIO<GmmArgs> = {
  name: 'gmm',
  prepare,
  primal: {
    objective: evalFn((a: GmmArgs) => gmmObjective(a.alpha, a.mu, a.q, a.l, a.x, a.m, a.gamma), (r: number) => r),
  },
  // jacobian: {alpha, mu, q, l} = d gmmObjective / d (alpha, mu, q, l), same shapes as the inputs
  derivatives: ['jacobian'],
};
