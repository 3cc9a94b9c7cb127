// lse: `gradient` = d logsumexp(x) / dx, from tsad's adjoint of `logsumexp`.
import { derive, evalSource } from '../tsad.js';
import type { LseArgs } from './io.js';

type LogsumexpB = (x: number[], xb: number[], resultb: number) => void;

function generated(): LogsumexpB {
  return derive('lse/logsumexp/reverse', () => ({ 'lse.ts': evalSource('lse') }), {
    head: 'logsumexp',
    wrt: ['x'],
    modes: ['reverse'],
  }).fn<LogsumexpB>('logsumexp_b', ['x', 'xb', 'resultb']);
}

/** The gradient (one adjoint sweep), number[n]. */
export function gradient(a: LseArgs): number[] {
  const xb = new Array<number>(a.x.length).fill(0);
  generated()(a.x, xb, 1);
  return xb;
}

export const derivatives = {
  gradient: (a: LseArgs): unknown => gradient(a),
};
