// ba: bundle-adjustment residuals.
//   objective = baObjective(cams, points, weights, features, obs, reprojErr, wErr)
//               (all p observations; the eval reports observation 0 and the count p)
//   jacobian  = sparse Jacobian of the residual vector: for every observation i the dense
//               2×15 Jacobian of reprojError(cams[obs[2i]], points[obs[2i+1]], weights[i], features[i])
//               with respect to (cam[0..10], X[0..2], w) — forward mode over 15 directions or
//               two reverse sweeps — scattered into CSR; plus d weightError/dw = -2w per weight row.
//               features and obs are passive.
//
// Camera layout: cam[0..2] axis-angle rotation r, cam[3..5] centre C, cam[6] focal length,
// cam[7..8] principal point, cam[9..10] radial distortion k1, k2.

/** The two weighted reprojection residuals of one observation. */
export function reprojError(cam: number[], X: number[], w: number, feat: number[]): number[] {
  // Y = X - C
  const y0 = X[0] - cam[3];
  const y1 = X[1] - cam[4];
  const y2 = X[2] - cam[5];
  // rotate Y by the axis-angle vector r (Rodrigues)
  const r0 = cam[0];
  const r1 = cam[1];
  const r2 = cam[2];
  const theta2 = r0 * r0 + r1 * r1 + r2 * r2;
  let z0 = 0;
  let z1 = 0;
  let z2 = 0;
  if (theta2 !== 0) {
    const theta = Math.sqrt(theta2);
    const cosT = Math.cos(theta);
    const sinT = Math.sin(theta);
    const a0 = r0 / theta;
    const a1 = r1 / theta;
    const a2 = r2 / theta;
    const tmp = (a0 * y0 + a1 * y1 + a2 * y2) * (1 - cosT);
    z0 = y0 * cosT + (a1 * y2 - a2 * y1) * sinT + a0 * tmp;
    z1 = y1 * cosT + (a2 * y0 - a0 * y2) * sinT + a1 * tmp;
    z2 = y2 * cosT + (a0 * y1 - a1 * y0) * sinT + a2 * tmp;
  } else {
    // first-order form at theta = 0 (avoids sqrt(0) in derivatives)
    z0 = y0 + (r1 * y2 - r2 * y1);
    z1 = y1 + (r2 * y0 - r0 * y2);
    z2 = y2 + (r0 * y1 - r1 * y0);
  }
  // perspective division and radial distortion
  const s0 = z0 / z2;
  const s1 = z1 / z2;
  const rho = s0 * s0 + s1 * s1;
  const distortion = 1 + cam[9] * rho + cam[10] * rho * rho;
  const proj0 = cam[6] * (s0 * distortion) + cam[7];
  const proj1 = cam[6] * (s1 * distortion) + cam[8];
  return [w * (proj0 - feat[0]), w * (proj1 - feat[1])];
}

/** The weight-regularisation residual of one observation. */
export function weightError(w: number): number {
  return 1 - w * w;
}

/**
 * All residuals: reprojErr[2i], reprojErr[2i+1] for observation i (camera obs[2i], point obs[2i+1]),
 * wErr[i] = 1 - weights[i]^2. Output arrays have lengths 2p and p.
 */
export function baObjective(
  cams: number[][],
  points: number[][],
  weights: number[],
  features: number[][],
  obs: number[],
  reprojErr: Float64Array,
  wErr: Float64Array,
): void {
  const p = weights.length;
  for (let i = 0; i < p; i++) {
    const e = reprojError(cams[obs[2 * i]], points[obs[2 * i + 1]], weights[i], features[i]);
    reprojErr[2 * i] = e[0];
    reprojErr[2 * i + 1] = e[1];
  }
  for (let i = 0; i < p; i++) {
    wErr[i] = weightError(weights[i]);
  }
}
