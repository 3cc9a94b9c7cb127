// det: `gradient` = d det(A) / dA (flat row-major), from tsad's adjoint of `det` (ell passive).
import { derive, evalSource } from '../tsad.js';
import type { DetArgs } from './io.js';

type DetB = (A: number[], Ab: number[], ell: number, resultb: number) => void;

function generated(): DetB {
  return derive('det/det/reverse', () => ({ 'det.ts': evalSource('det') }), {
    head: 'det',
    wrt: ['A'],
    modes: ['reverse'],
  }).fn<DetB>('det_b', ['A', 'Ab', 'ell', 'resultb']);
}

/** The gradient (one adjoint sweep through the recursion), number[ell*ell]. */
export function gradient(a: DetArgs): number[] {
  const Ab = new Array<number>(a.A.length).fill(0);
  generated()(a.A, Ab, a.ell, 1);
  return Ab;
}

export const derivatives = {
  gradient: (a: DetArgs): unknown => gradient(a),
};
