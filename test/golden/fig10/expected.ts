// Fig. 10 (MERGE-1) of RR-7957, naive column, translated by hand from the figure into tsad's conventions.
//
//   resb = v(j)*gb(i, j)
//   vb(j) = vb(j) + res*gb(i, j)
//   gb(i, j) = 0.0
//   taub = taub + (z(j)-2.0)*g(i, j)*resb/v(j)
//   wb(i, j) = wb(i, j) - g(i, j)*(z(j)-2.0)*resb/v(j)
//   gb(i, j) = gb(i, j) + (z(j)-2.0)*(tau-w(i, j))*resb/v(j)
//   zb(j) = zb(j) + (tau-w(i, j))*g(i, j)*resb/v(j)
//   vb(j) = vb(j) - (tau-w(i, j))*g(i, j)*(z(j)-2.0)*resb/v(j)**2
//
// The figure shows the backward sweep of the block; around it, the paper's store-all rules
// (A-ASSIGN-LIVE-DIFF: push g(i,j) before it is overwritten, pop it before the adjoint statements, whose
// g(i,j) is the value before the block). Fortran's left-associative `a*b*c/d` is kept as it parses.
// Glue (tsad's convention, not in the figure): forward and backward sweeps are the split functions
// merge_fwd/merge_bwd; the local res, read by the backward sweep, travels on the tape; the adjoint of the
// scalar tau is returned.
import { Tape } from '../../../src/runtime/tape.js';
import { restoreInto, snapshot } from '../../../src/runtime/arrays.js';

export function merge_fwd(tape: Tape, tau: number, w: number[][], wb: number[][], g: number[][], gb: number[][], z: number[], zb: number[], v: number[], vb: number[], i: number, j: number): void {
  const res = ((tau - w[i][j]) * g[i][j] * (z[j] - 2.0)) / v[j];
  tape.pushF(g[i][j]);
  g[i][j] = res * v[j];
  tape.pushF(res); // glue
}

export function merge_bwd(tape: Tape, tau: number, w: number[][], wb: number[][], g: number[][], gb: number[][], z: number[], zb: number[], v: number[], vb: number[], i: number, j: number): number {
  let taub = 0; // glue: tau is a scalar passed by value, its adjoint is returned
  const res = tape.popF(); // glue
  g[i][j] = tape.popF();
  const resb = v[j] * gb[i][j];
  vb[j] += res * gb[i][j];
  gb[i][j] = 0.0;
  taub += ((z[j] - 2.0) * g[i][j] * resb) / v[j];
  wb[i][j] -= (g[i][j] * (z[j] - 2.0) * resb) / v[j];
  gb[i][j] += ((z[j] - 2.0) * (tau - w[i][j]) * resb) / v[j];
  zb[j] += ((tau - w[i][j]) * g[i][j] * resb) / v[j];
  vb[j] -= ((tau - w[i][j]) * g[i][j] * (z[j] - 2.0) * resb) / v[j] ** 2;
  return taub;
}

// glue only
export function merge_b(tau: number, w: number[][], wb: number[][], g: number[][], gb: number[][], z: number[], zb: number[], v: number[], vb: number[], i: number, j: number): number {
  const tape = Tape.acquire();
  merge_fwd(tape, tau, w, wb, g, gb, z, zb, v, vb, i, j);
  const gOut = snapshot(g);
  const taub = merge_bwd(tape, tau, w, wb, g, gb, z, zb, v, vb, i, j);
  restoreInto(g, gOut);
  Tape.release(tape);
  return taub;
}
