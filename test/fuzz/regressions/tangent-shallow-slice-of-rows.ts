// From a new user's trial: `slice()` without arguments on an array of rows or of objects copied the rows
// too (the `copy` intrinsic), so a write through the copy's row did not reach the original: the
// derivative was silently wrong in every mode (tangent and adjoint agreed, so the self-check passed)
export interface P {
  u: number;
  v: number;
  w: number;
}

export function f(A: number[][], s: number): number {
  const ps: P[] = [{ u: A[0][1], v: 0.5, w: 1 }, { u: -0.5, v: A[1][0], w: 0.25 }];
  const B = A.slice();
  B[0][0] *= s;
  const Q = ps.slice();
  Q[0].u *= s;
  A[1][1] += Q[1].v * s;
  return A[0][0] + ps[0].u + B[1][1];
}
