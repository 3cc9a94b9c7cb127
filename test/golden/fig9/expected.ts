// Fig. 9 (VECTOR-1) of RR-7957, translated by hand from the figure into tsad's conventions.
//
// Figure content: G_d (tangent) and G_dv (multi-directional tangent). The call nested in `x*F(y(9))` is
// split into result1; `result1d = F_D(y(9),yd(9),result1)` (F_D returns the tangent and writes the value)
// becomes one call returning [value, tangent]; `CALL F_DV(y(9),yd(:,9),result1,result1d,nbdirs)` likewise,
// with yd(:,9) — the directions of y[9] in tsad's flat layout, yd[9 * nbdirs + nd] — passed as a
// Float64Array. In G_dv, `x = x + y(2)` is moved before the first direction loop so that the two
// derivative statements share one loop (fusion), as in the figure. Direction loop index nd from 0.
//
// Glue (tsad's convention, not in the figure): x is returned with its tangent ([x, xd]); in vector mode the
// caller's xd is only read, so G_dv works on a copy of it. F is EXTERNAL in the figure; F_d and F_dv below
// are written by hand for the body given in input.ts and are not compared.
export function F_d(t: number, td: number): [number, number] {
  const Fd = td * Math.sin(t) + t * (Math.cos(t) * td);
  return [t * Math.sin(t), Fd];
}

export function F_dv(t: number, td: Float64Array, nbdirs: number): [number, Float64Array] {
  const Fd = new Float64Array(nbdirs);
  for (let nd = 0; nd < nbdirs; nd++) {
    Fd[nd] = td[nd] * Math.sin(t) + t * (Math.cos(t) * td[nd]);
  }
  return [t * Math.sin(t), Fd];
}

export function G_d(x: number, xd: number, y: number[], yd: number[]): [number, number] {
  xd = xd + yd[2];
  x = x + y[2];
  xd = xd * x + x * xd;
  x = x * x;
  const [result1, result1d] = F_d(y[9], yd[9]);
  yd[10] = xd * result1 + x * result1d;
  y[10] = x * result1;
  return [x, xd];
}

export function G_dv(x: number, xd: Float64Array, y: number[], yd: number[], nbdirs: number): [number, Float64Array] {
  xd = Float64Array.from(xd); // glue: the caller's tangents are read, not written
  x = x + y[2];
  for (let nd = 0; nd < nbdirs; nd++) {
    xd[nd] = xd[nd] + yd[2 * nbdirs + nd];
    xd[nd] = xd[nd] * x + x * xd[nd];
  }
  x = x * x;
  const [result1, result1d] = F_dv(y[9], Float64Array.from(yd.slice(9 * nbdirs, 10 * nbdirs)), nbdirs);
  for (let nd = 0; nd < nbdirs; nd++) {
    yd[10 * nbdirs + nd] = xd[nd] * result1 + x * result1d[nd];
  }
  y[10] = x * result1;
  return [x, xd];
}
