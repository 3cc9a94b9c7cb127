// hello: `double` = d square / dx, from tsad's tangent of `square`.
import { derive, evalSource } from '../tsad.js';
import type { HelloArgs } from './io.js';

type SquareD = (x: number, xd: number) => [number, number];

function generated(): SquareD {
  return derive('hello/square/tangent', () => ({ 'hello.ts': evalSource('hello') }), {
    head: 'square',
    wrt: ['x'],
    modes: ['tangent'],
  }).fn<SquareD>('square_d', ['x', 'xd']);
}

/** d square(x) / dx (tangent mode, one direction). */
export function double(a: HelloArgs): number {
  return generated()(a.x, 1)[1];
}

/** Derivative functions by the eval's function name → JSON output. */
export const derivatives = {
  double: (a: HelloArgs): unknown => double(a),
};
