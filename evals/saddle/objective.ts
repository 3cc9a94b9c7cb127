// saddle: min over a of max over b of f(a, b) = (a0^2 + a1^2) - (b0^2 + b1^2), both by the
// gradient descent of ../argmin.ts, starting every descent at the input point s.
//
// Only the primal function is written here. Derivatives the eval needs (nested AD):
//   inner:  grad_b f(a, b)  — AD mode = 2nd letter of ff/fr/rf/rr (forward: 2 passes);
//           used by   beta(a) = argmax(b -> f(a, b), grad_b f(a, .), s)
//   outer:  grad_a V(a) where V(a) = f(a, beta(a)) — AD mode = 1st letter; it differentiates
//           THROUGH the inner argmax loop, which itself calls the inner AD gradient
//           (perturbation confusion risk). Exact answer for this f: grad V(a) = 2a.
//   result: a* = argmin(V, grad V, s), b* = beta(a*); output [a*0, a*1, b*0, b*1].
// For the outer derivative the inner argmax must be expressed in the compiler's subset, e.g.
//
//   function innerArgmax(a: number[], s: number[]): number[] {
//     let b = [s[0], s[1]]; let fb = -saddleF(a, b); let g = negate(GRAD_B_saddleF(a, b));
//     let eta = 1e-5; let c = 0;
//     while (true) { ...the rules of argmin in ../argmin.ts, with f = -saddleF(a, .)... }
//   }
//   function saddleValue(a: number[], s: number[]): number { return saddleF(a, innerArgmax(a, s)); }
//
// where GRAD_B_saddleF stands for the tsad-generated gradient of saddleF with respect to b.

export function saddleF(a: number[], b: number[]): number {
  return a[0] * a[0] + a[1] * a[1] - (b[0] * b[0] + b[1] * b[1]);
}
