// Hand-minimized from program #16 of `npm run fuzz -- --seed 1` (dot-product test, the adjoint is wrong):
// the adjoint of an active entry of a nested array literal passed as an argument is never propagated
// back (f_bwd lacks `yb += argb[0][1]`); a one-level literal ([x, 3]) and an object literal are fine.
export function g(m: number[][]): number {
  return m[0][1] * m[0][1];
}

export function f(y: number): number {
  return g([[0.5, y], [1, 2]]);
}
