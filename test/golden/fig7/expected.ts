// Fig. 7 (CONTROL-1) of RR-7957, translated by hand from the figure into tsad's conventions.
//
// Figure content (all four blocks): the tangent loop; the forward sweep that evaluates the loop start
// once into tmpF, pushes a and c before they are overwritten, gives the IF an ELSE so that each branch
// pushes its control code at its end (0 for THEN, 1 for ELSE), and pushes tmpF (as an integer) after the
// loop; the backward sweep that pops tmpF, runs the loop from 1000 down to tmpF, pops the control code
// into `branch` and tests `branch === 0`. PUSHREAL4/POPREAL4 → tape.pushF/popF, PUSHINTEGER4/
// POPINTEGER4 and PUSHCONTROL/POPCONTROL → tape.pushI/popI; `v = v + e` is written `v += e`.
//
// Glue (tsad's calling convention, not in the figure, marked below): c is the dependent and is returned,
// so the tangent returns [c, cd], the adjoint receives the seed of the result last and returns the
// adjoints of the scalars [ab, cb]; because control_bwd is a separate function that receives a and c by
// value, their values at the end of the forward sweep travel on the tape.
import { Tape } from '../../../src/runtime/tape.js';

export function control_d(a: number, ad: number, c: number, cd: number, B: number[], Bd: number[], n: number, m: number): [number, number] {
  for (let i = 3 * n * m; i <= 1000; i++) {
    ad = ad - 2 * Bd[i];
    a = a - 2 * B[i];
    if (a > 0) {
      cd = cd * a + c * ad;
      c = c * a;
    }
  }
  return [c, cd];
}

export function control_fwd(tape: Tape, a: number, c: number, B: number[], Bb: number[], n: number, m: number): number {
  const tmpF = 3 * n * m;
  for (let i = tmpF; i <= 1000; i++) {
    tape.pushF(a);
    a = a - 2 * B[i];
    if (a > 0) {
      tape.pushF(c);
      c = c * a;
      tape.pushI(0);
    } else {
      tape.pushI(1);
    }
  }
  tape.pushI(tmpF);
  // glue: the final a and c for the backward sweep
  tape.pushF(a);
  tape.pushF(c);
  return c;
}

export function control_bwd(tape: Tape, a: number, c: number, B: number[], Bb: number[], n: number, m: number, resultb: number): [number, number] {
  let ab = 0;
  let cb = 0;
  // glue: the final a and c, the seed of the result
  c = tape.popF();
  a = tape.popF();
  cb += resultb;
  const tmpF = tape.popI();
  for (let i = 1000; i >= tmpF; i--) {
    const branch = tape.popI();
    if (branch === 0) {
      c = tape.popF();
      ab += c * cb;
      cb = a * cb;
    }
    a = tape.popF();
    Bb[i] -= 2 * ab;
  }
  return [ab, cb];
}

// glue only
export function control_b(a: number, c: number, B: number[], Bb: number[], n: number, m: number, resultb: number): [number, number] {
  const tape = Tape.acquire();
  control_fwd(tape, a, c, B, Bb, n, m);
  const adjoints = control_bwd(tape, a, c, B, Bb, n, m, resultb);
  Tape.release(tape);
  return adjoints;
}
