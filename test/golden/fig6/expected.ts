// Fig. 6 (ASSIGN-1) of RR-7957, translated by hand from the figure into tsad's conventions.
//
//   ! tangent                                      ! adjoint
//   ad(i) = xd*b(j) + x*bd(j) - ad(i)*SIN(a(i))    xb = xb + b(j)*ab(i)
//                                                  bb(j) = bb(j) + x*ab(i)
//                                                  ab(i) = -SIN(a(i))*ab(i)
//
// Figure content: the derivative statements. Fortran's `-SIN(a(i))*ab(i)` is `-(SIN(a(i))*ab(i))`
// (unary minus binds like binary minus in Fortran), kept as such; `v = v + e` is written `v += e`.
// Around it, the procedure-level code of the paper's rules (T-ASSIGN-LIVE-DIFF: derivative statement
// before the primal one; A-ASSIGN-LIVE-DIFF: push the overwritten a(i) in the forward sweep, pop it before
// the adjoint statements) and tsad's calling convention (glue, marked below): the forward and backward
// sweeps are the split functions assign_fwd/assign_bwd, the adjoint of the scalar x is returned.
import { Tape } from '../../../src/runtime/tape.js';
import { restoreInto, snapshot } from '../../../src/runtime/arrays.js';

export function assign_d(a: number[], ad: number[], b: number[], bd: number[], x: number, xd: number, i: number, j: number): void {
  ad[i] = xd * b[j] + x * bd[j] - ad[i] * Math.sin(a[i]);
  a[i] = x * b[j] + Math.cos(a[i]);
}

export function assign_fwd(tape: Tape, a: number[], ab: number[], b: number[], bb: number[], x: number, i: number, j: number): void {
  tape.pushF(a[i]);
  a[i] = x * b[j] + Math.cos(a[i]);
}

export function assign_bwd(tape: Tape, a: number[], ab: number[], b: number[], bb: number[], x: number, i: number, j: number): number {
  let xb = 0; // glue: x is a scalar passed by value, its adjoint is returned
  a[i] = tape.popF();
  xb += b[j] * ab[i];
  bb[j] += x * ab[i];
  ab[i] = -(Math.sin(a[i]) * ab[i]);
  return xb;
}

// glue only (tsad's convention, not in the figure): one tape, both sweeps, primal array left as the primal leaves it
export function assign_b(a: number[], ab: number[], b: number[], bb: number[], x: number, i: number, j: number): number {
  const tape = Tape.acquire();
  assign_fwd(tape, a, ab, b, bb, x, i, j);
  const aOut = snapshot(a);
  const xb = assign_bwd(tape, a, ab, b, bb, x, i, j);
  restoreInto(a, aOut);
  Tape.release(tape);
  return xb;
}
