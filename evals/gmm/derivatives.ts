// gmm: `jacobian` = d gmmObjective / d (alpha, mu, q, l), from tsad's adjoint of `gmmObjective`
// (x, m, gamma passive).
import { derive, evalSource, zerosRows } from '../tsad.js';
import type { GmmArgs } from './io.js';

type GmmB = (
  alpha: number[], alphab: number[],
  mu: number[][], mub: number[][],
  q: number[][], qb: number[][],
  l: number[][], lb: number[][],
  x: number[][], m: number, gamma: number, resultb: number,
) => void;

function generated(): GmmB {
  return derive('gmm/gmmObjective/reverse', () => ({ 'gmm.ts': evalSource('gmm') }), {
    head: 'gmmObjective',
    wrt: ['alpha', 'mu', 'q', 'l'],
    modes: ['reverse'],
  }).fn<GmmB>('gmmObjective_b', ['alpha', 'alphab', 'mu', 'mub', 'q', 'qb', 'l', 'lb', 'x', 'm', 'gamma', 'resultb']);
}

export interface GmmJacobian {
  alpha: number[];
  mu: number[][];
  q: number[][];
  l: number[][];
}

/** The gradient (one adjoint sweep), in the shapes of the inputs (the eval's JSON layout). */
export function jacobian(a: GmmArgs): GmmJacobian {
  const out: GmmJacobian = {
    alpha: new Array<number>(a.alpha.length).fill(0),
    mu: zerosRows(a.mu),
    q: zerosRows(a.q),
    l: zerosRows(a.l),
  };
  generated()(a.alpha, out.alpha, a.mu, out.mu, a.q, out.q, a.l, out.l, a.x, a.m, a.gamma, 1);
  return out;
}

export const derivatives = {
  jacobian: (a: GmmArgs): unknown => jacobian(a),
};
