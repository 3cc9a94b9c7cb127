// ode: `gradient` = d odeLast(x, s) / dx = d Y[n-1] / dx, from tsad's adjoint of `odeLast` (s passive).
// This is the derivative of the discretised (RK4) program; see ode.md for why the suite's closed-form
// reference differs from it for 4 < n with few steps (the golden file small_n6_s3 carries the RK4 one).
import { derive, evalSource } from '../tsad.js';
import type { OdeArgs } from './io.js';

type OdeLastB = (x: number[], xb: number[], s: number, resultb: number) => void;

function generated(): OdeLastB {
  return derive('ode/odeLast/reverse', () => ({ 'ode.ts': evalSource('ode') }), {
    head: 'odeLast',
    wrt: ['x'],
    modes: ['reverse'],
  }).fn<OdeLastB>('odeLast_b', ['x', 'xb', 's', 'resultb']);
}

/** The gradient (one adjoint sweep over the time loop), number[n]. */
export function gradient(a: OdeArgs): number[] {
  const xb = new Array<number>(a.x.length).fill(0);
  generated()(a.x, xb, a.s, 1);
  return xb;
}

export const derivatives = {
  gradient: (a: OdeArgs): unknown => gradient(a),
};
