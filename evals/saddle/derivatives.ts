// saddle: ff / fr / rf / rr = [a*0, a*1, b*0, b*1] of the nested min–max of saddle.md.
//
// Nested AD by applying tsad to its own output:
//   stage 1  tsad differentiates saddleF with respect to b (inner mode = 2nd letter); its TypeScript
//            output is one file of stage 2;
//   stage 2  the inner maximisation (the rules of ../argmin.ts, written in tsad's subset) and
//            V(a) = saddleF(a, innerArgmax(a, s)) are differentiated with respect to a (outer mode =
//            1st letter) — through the inner gradient-descent loop, which calls the stage-1 gradient.
// The outer minimisation uses the shared callback driver (../argmin.ts) with V = the compiled primal of
// stage 2; b* = innerArgmax(a*, s), the compiled primal (inner gradient in the inner mode).
//
// Inner reverse (fr, rr) relies on tsad accepting its own adjoint output (which imports Tape from
// 'tsad/runtime') as input. Known tsad problems per function: see test/evals.derivatives.test.ts.
import { argmin } from '../argmin.js';
import { derive, deriveSource, evalSource } from '../tsad.js';
import type { SaddleArgs } from './io.js';

export type AdMode = 'f' | 'r';

/** Stage 1: tsad's gradient code for saddleF with respect to b (TypeScript). */
function innerSource(inner: AdMode): string {
  return deriveSource(`saddle/saddleF/${inner}`, () => ({ 'saddle.ts': evalSource('saddle') }), {
    head: 'saddleF',
    wrt: ['b'],
    modes: [inner === 'f' ? 'tangent' : 'reverse'],
  });
}

/** grad_b saddleF(a, b) from the stage-1 code: two tangent passes, or one adjoint sweep. */
const GRAD_B: Record<AdMode, string> = {
  f: `import { saddleF, saddleF_d } from './inner.js';

export function gradB(a: number[], b: number[]): number[] {
  const d0 = saddleF_d(a, b, [1, 0]);
  const d1 = saddleF_d(a, b, [0, 1]);
  return [d0[1], d1[1]];
}
`,
  r: `import { saddleF, saddleF_b } from './inner.js';

export function gradB(a: number[], b: number[]): number[] {
  const bb = [0, 0];
  saddleF_b(a, b, bb, 1);
  return bb;
}
`,
};

/**
 * beta(a) = argmax(b -> saddleF(a, b), gradB(a, .), s) = argmin of -saddleF(a, .), with exactly the
 * rules (and floating-point operations) of ../argmin.ts; V(a) = saddleF(a, beta(a)).
 */
export const OUTER_SOURCE = `
export function innerArgmax(a: number[], s: number[]): number[] {
  let z0 = s[0];
  let z1 = s[1];
  let fz = -saddleF(a, [z0, z1]);
  const g = gradB(a, [z0, z1]);
  let g0 = -g[0];
  let g1 = -g[1];
  let eta = 1e-5;
  let c = 0;
  while (true) {
    if (Math.sqrt(g0 * g0 + g1 * g1) <= 1e-5) return [z0, z1];
    if (c === 10) {
      eta = 2 * eta;
      c = 0;
      continue;
    }
    const n0 = z0 - eta * g0;
    const n1 = z1 - eta * g1;
    const d0 = z0 - n0;
    const d1 = z1 - n1;
    if (Math.sqrt(d0 * d0 + d1 * d1) <= 1e-5) return [z0, z1];
    const fNew = -saddleF(a, [n0, n1]);
    if (fNew < fz) {
      z0 = n0;
      z1 = n1;
      fz = fNew;
      const gNew = gradB(a, [z0, z1]);
      g0 = -gNew[0];
      g1 = -gNew[1];
      c++;
    } else {
      eta = eta / 2;
      c = 0;
    }
  }
}

export function saddleValue(a: number[], s: number[]): number {
  return saddleF(a, innerArgmax(a, s));
}
`;

interface Outer {
  V: (a: number[], s: number[]) => number;
  gradV: (a: number[], s: number[]) => number[];
  beta: (a: number[], s: number[]) => number[];
}

function outer(outerMode: AdMode, inner: AdMode): Outer {
  const g = derive(`saddle/saddleValue/${outerMode}${inner}`, () => ({ 'inner.ts': innerSource(inner), 'outer.ts': GRAD_B[inner] + OUTER_SOURCE }), {
    head: 'saddleValue',
    wrt: ['a'],
    modes: [outerMode === 'f' ? 'tangent' : 'reverse'],
  });
  const V = g.primal<(a: number[], s: number[]) => number>('saddleValue');
  const beta = g.primal<(a: number[], s: number[]) => number[]>('innerArgmax');
  if (outerMode === 'f') {
    const d = g.fn<(a: number[], ad: number[], s: number[]) => [number, number]>('saddleValue_d', ['a', 'ad', 's']);
    // forward mode over R^2: two passes
    return { V, beta, gradV: (a, s) => [d(a, [1, 0], s)[1], d(a, [0, 1], s)[1]] };
  }
  const b = g.fn<(a: number[], ab: number[], s: number[], resultb: number) => void>('saddleValue_b', ['a', 'ab', 's', 'resultb']);
  return {
    V,
    beta,
    gradV: (a, s) => {
      const ab = [0, 0];
      b(a, ab, s, 1);
      return ab;
    },
  };
}

/** [a*0, a*1, b*0, b*1] with the outer gradient in mode `outerMode` and the inner one in mode `inner`. */
export function solve(args: SaddleArgs, outerMode: AdMode, inner: AdMode): number[] {
  const { V, gradV, beta } = outer(outerMode, inner);
  const s = args.start;
  const aStar = argmin((a) => V(a, s), (a) => gradV(a, s), s);
  const bStar = beta(aStar, s);
  return [aStar[0], aStar[1], bStar[0], bStar[1]];
}

export const derivatives = {
  ff: (a: SaddleArgs): unknown => solve(a, 'f', 'f'),
  fr: (a: SaddleArgs): unknown => solve(a, 'f', 'r'),
  rf: (a: SaddleArgs): unknown => solve(a, 'r', 'f'),
  rr: (a: SaddleArgs): unknown => solve(a, 'r', 'r'),
};
