// From a new user's trial: a reference parameter rebound to a fresh array while another name keeps the
// old one. The forward sweep ended holding the new array and its new adjoint, but the backward sweep
// started from the caller's: a wrong adjoint (the tangent was right; the self-check caught it)
export function f(A: number[][], a: number[], s: number): number {
  const B = A;
  A = A.map((r) => r.slice());
  B[0][0] *= s;
  A[0][0] += 1;
  const b = a;
  a = [a[0] * 2, a[1]];
  b[0] *= s;
  return B[0][0] + A[0][0] + b[0] + a[0];
}
