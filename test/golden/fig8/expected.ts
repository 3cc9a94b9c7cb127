// Fig. 8 (ACTIVITY-1) of RR-7957, translated by hand from the figure into tsad's conventions.
// Independents a, b, c; dependents d and e, the fields d and e of the returned object.
//
//   ! naive tangent                 ! with activity analysis
//   xd = a*bd + ad*b                x = a*b
//   x = a*b
//   ad = 0.0                        a = 5.0
//   a = 5.0
//   dd = a*cd + ad*c                dd = a*cd
//   d = a*c                         d = a*c
//   ed = ad/x - a*xd/x**2           e = a/x
//   e = a/x
//   ed = 0.0                        e = floor(e)
//   e = floor(e)
//
// activity_d is the column "with activity analysis" (tsad analyses activity: the golden test);
// activity_d_naive is the naive column (checked numerically only).
// Glue (not in the figure): the tangent returns [result, tangent of the result]. The figure leaves ed
// unset at exit (implicit zero, erratum 11 of the notes); the object returned here states it: e: 0.
import type { Outputs } from './input.js';

export function activity_d(a: number, ad: number, b: number, bd: number, c: number, cd: number): [Outputs, Outputs] {
  const x = a * b;
  a = 5.0;
  const dd = a * cd;
  const d = a * c;
  let e = a / x;
  e = Math.floor(e);
  return [{ d, e }, { d: dd, e: 0 }];
}

export function activity_d_naive(a: number, ad: number, b: number, bd: number, c: number, cd: number): [Outputs, Outputs] {
  const xd = a * bd + ad * b;
  const x = a * b;
  ad = 0.0;
  a = 5.0;
  const dd = a * cd + ad * c;
  const d = a * c;
  let ed = ad / x - (a * xd) / x ** 2;
  let e = a / x;
  ed = 0.0;
  e = Math.floor(e);
  return [{ d, e }, { d: dd, e: ed }];
}
