// particle: find the control w so that a charged particle's path crosses the x-axis at the
// origin, by gradient descent (../argmin.ts) on J(w) from w0.
//
// Only the primal pieces are written here. Derivatives the eval needs (nested AD):
//   inner:  grad_p potential(p, w) (2 components) — AD mode = 2nd letter of ff/fr/rf/rr
//           (forward: two passes, one per coordinate of p); the acceleration is a = -grad_p.
//   outer:  dJ/dw of the whole simulation below — AD mode = 1st letter; it differentiates
//           THROUGH the inner gradient, which depends on w via the charge at (10, 10 - w)
//           (perturbation confusion risk), and through a while loop whose trip count depends on w.
//   result: the single coordinate of argmin(J, dJ/dw, [w0]); all four functions return it.
//
// The simulation J(w), in the compiler's subset, with GRAD_P_potential standing for the
// tsad-generated gradient of `potential` with respect to p:
//
//   function simulate(w: number): number {
//     const dt = 0.1;
//     let p0 = 0; let p1 = 8;          // position
//     let v0 = 0.75; let v1 = 0;       // velocity
//     while (true) {
//       const g = GRAD_P_potential([p0, p1], w);   // at the OLD position
//       const a0 = -g[0]; const a1 = -g[1];
//       p0 = p0 + dt * v0; p1 = p1 + dt * v1;      // advance with the OLD velocity
//       if (p1 <= 0) {                              // exit test before the velocity update
//         const tau = -p1 / v1;
//         const x = p0 + tau * v0;
//         return x * x;
//       }
//       v0 = v0 + dt * a0; v1 = v1 + dt * a1;
//     }
//   }
//
// For w = 0 the loop runs 353 times and J(0) ≈ 3.199.

/** Electric potential at p of unit charges at (10, 10 - w) and (10, 0). */
export function potential(p: number[], w: number): number {
  const dx1 = p[0] - 10;
  const dy1 = p[1] - (10 - w);
  const dx2 = p[0] - 10;
  const dy2 = p[1] - 0;
  return 1 / Math.sqrt(dx1 * dx1 + dy1 * dy1) + 1 / Math.sqrt(dx2 * dx2 + dy2 * dy2);
}
