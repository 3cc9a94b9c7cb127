// particle: ff / fr / rf / rr = argmin(J, dJ/dw, [w0]) with J the simulation of particle.md.
//
// Nested AD by applying tsad to its own output:
//   stage 1  tsad differentiates `potential` with respect to p (inner mode = 2nd letter); its TypeScript
//            output is one file of stage 2;
//   stage 2  the simulation below, written in tsad's subset and calling the stage-1 gradient, is
//            differentiated with respect to w (outer mode = 1st letter) — through the inner gradient
//            (which depends on w through the charge at (10, 10 - w)) and through the while loop.
// The optimiser is the shared callback driver (../argmin.ts); J itself is the compiled primal of
// stage 2 (it needs the inner AD gradient too).
//
// Inner reverse (fr, rr) relies on tsad accepting its own adjoint output (which imports Tape from
// 'tsad/runtime') as input. Known tsad problems per function: see test/evals.derivatives.test.ts.
import { argmin } from '../argmin.js';
import { derive, deriveSource, evalSource } from '../tsad.js';
import type { ParticleArgs } from './io.js';

export type AdMode = 'f' | 'r';

/** Stage 1: tsad's gradient code for `potential` with respect to p (TypeScript). */
function innerSource(inner: AdMode): string {
  return deriveSource(`particle/potential/${inner}`, () => ({ 'particle.ts': evalSource('particle') }), {
    head: 'potential',
    wrt: ['p'],
    modes: [inner === 'f' ? 'tangent' : 'reverse'],
  });
}

/** grad_p potential(p, w) from the stage-1 code: two tangent passes, or one adjoint sweep. */
const GRAD_P: Record<AdMode, string> = {
  f: `import { potential_d } from './inner.js';

export function gradPotential(p: number[], w: number): number[] {
  const d0 = potential_d(p, [1, 0], w);
  const d1 = potential_d(p, [0, 1], w);
  return [d0[1], d1[1]];
}
`,
  r: `import { potential_b } from './inner.js';

export function gradPotential(p: number[], w: number): number[] {
  const pb = [0, 0];
  potential_b(p, pb, w, 1);
  return pb;
}
`,
};

/** The simulation J(w) of particle.md in tsad's subset (stage 2, with GRAD_P above). */
export const SIMULATE_SOURCE = `
export function simulate(w: number): number {
  const dt = 0.1;
  let p0 = 0;
  let p1 = 8;
  let v0 = 0.75;
  let v1 = 0;
  while (true) {
    // acceleration at the OLD position
    const g = gradPotential([p0, p1], w);
    const a0 = -g[0];
    const a1 = -g[1];
    // advance with the OLD velocity
    p0 = p0 + dt * v0;
    p1 = p1 + dt * v1;
    // exit test before the velocity update
    if (p1 <= 0) {
      const tau = -p1 / v1;
      const x = p0 + tau * v0;
      return x * x;
    }
    v0 = v0 + dt * a0;
    v1 = v1 + dt * a1;
  }
}
`;

interface Objective {
  J: (w: number) => number;
  dJ: (w: number) => number;
}

function objective(outer: AdMode, inner: AdMode): Objective {
  const g = derive(`particle/simulate/${outer}${inner}`, () => ({ 'inner.ts': innerSource(inner), 'simulate.ts': GRAD_P[inner] + SIMULATE_SOURCE }), {
    head: 'simulate',
    wrt: ['w'],
    modes: [outer === 'f' ? 'tangent' : 'reverse'],
  });
  const J = g.primal<(w: number) => number>('simulate');
  if (outer === 'f') {
    const d = g.fn<(w: number, wd: number) => [number, number]>('simulate_d', ['w', 'wd']);
    return { J, dJ: (w) => d(w, 1)[1] };
  }
  const b = g.fn<(w: number, resultb: number) => number>('simulate_b', ['w', 'resultb']);
  return { J, dJ: (w) => b(w, 1) };
}

/** The final w of the gradient descent, outer derivative in mode `outer`, inner gradient in mode `inner`. */
export function solve(a: ParticleArgs, outer: AdMode, inner: AdMode): number {
  const { J, dJ } = objective(outer, inner);
  return argmin((z) => J(z[0]), (z) => [dJ(z[0])], [a.w])[0];
}

export const derivatives = {
  ff: (a: ParticleArgs): unknown => solve(a, 'f', 'f'),
  fr: (a: ParticleArgs): unknown => solve(a, 'f', 'r'),
  rf: (a: ParticleArgs): unknown => solve(a, 'r', 'f'),
  rr: (a: ParticleArgs): unknown => solve(a, 'r', 'r'),
};
