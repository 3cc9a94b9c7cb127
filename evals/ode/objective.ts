// ode: s classical RK4 steps on [0, 2] for y' = F(y), y(0) = 0, with
//   F(y)_0 = x_0,  F(y)_i = x_i * y_{i-1}  (1 <= i < n).
//   primal   = ode(x, s)              → the whole final state Y (length n)
//   gradient = d odeLast(x, s) / d x  → gradient of the LAST component Y[n-1] only
//              (reverse mode over the s-step time loop; s is passive)

/** out = F(y) */
export function odeRhs(x: number[], y: Float64Array, out: Float64Array): void {
  const n = x.length;
  out[0] = x[0];
  for (let i = 1; i < n; i++) {
    out[i] = x[i] * y[i - 1];
  }
}

export function ode(x: number[], s: number): Float64Array {
  const n = x.length;
  const h = 2 / s;
  const y = new Float64Array(n);
  const k1 = new Float64Array(n);
  const k2 = new Float64Array(n);
  const k3 = new Float64Array(n);
  const k4 = new Float64Array(n);
  const tmp = new Float64Array(n);
  for (let step = 0; step < s; step++) {
    odeRhs(x, y, k1);
    for (let i = 0; i < n; i++) tmp[i] = y[i] + (h / 2) * k1[i];
    odeRhs(x, tmp, k2);
    for (let i = 0; i < n; i++) tmp[i] = y[i] + (h / 2) * k2[i];
    odeRhs(x, tmp, k3);
    for (let i = 0; i < n; i++) tmp[i] = y[i] + h * k3[i];
    odeRhs(x, tmp, k4);
    for (let i = 0; i < n; i++) {
      y[i] = y[i] + (h / 6) * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
    }
  }
  return y;
}

/** Scalar head for the `gradient` function: Y[n-1]. */
export function odeLast(x: number[], s: number): number {
  const y = ode(x, s);
  return y[x.length - 1];
}
