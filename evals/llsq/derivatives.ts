// llsq: `gradient` = d llsq(x, n) / dx, from tsad's adjoint of `llsq` (n passive).
import { derive, evalSource } from '../tsad.js';
import type { LlsqArgs } from './io.js';

type LlsqB = (x: number[], xb: number[], n: number, resultb: number) => void;

function generated(): LlsqB {
  return derive('llsq/llsq/reverse', () => ({ 'llsq.ts': evalSource('llsq') }), {
    head: 'llsq',
    wrt: ['x'],
    modes: ['reverse'],
  }).fn<LlsqB>('llsq_b', ['x', 'xb', 'n', 'resultb']);
}

/** The gradient (one adjoint sweep), number[m]. */
export function gradient(a: LlsqArgs): number[] {
  const xb = new Array<number>(a.x.length).fill(0);
  generated()(a.x, xb, a.n, 1);
  return xb;
}

export const derivatives = {
  gradient: (a: LlsqArgs): unknown => gradient(a),
};
