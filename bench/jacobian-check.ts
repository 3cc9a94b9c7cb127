// Checking a whole Jacobian of the ba and ht evals where no golden file covers the input (ba3–ba14, ht
// hand2–hand9 and the inputs built from hand9): J·v for a random direction v, row by row, against the
// central divided difference (F(x + hv) − F(x − hv)) / 2h of the eval's own primal. One direction
// tests every stored entry of a row at once (a wrong entry, column index or row pointer moves that
// row's J·v), and the primal is the code the golden files check on ba1, ba2 and hand1.
//
// A row's error is |difference − (J·v)_r| over the larger of Σ_j |J_rj v_j| and |difference|: relative
// to the row's own scale, so that one wrong row among millions is not averaged away. Used by
// bench/evals.ts before anything is timed. Not compiler input.
import type { BaCsr } from '../evals/ba/derivatives.js';
import { runObjective as baObjective, type BaArgs } from '../evals/ba/io.js';
import type { HtArgs } from '../evals/ht/io.js';
import { runObjective as htObjective } from '../evals/ht/io.js';
import { randomVector, uniform } from '../evals/random.js';

/** The step of the divided difference: the variables are O(1)–O(1000), the residuals' rounding ~1e-16 of O(100). */
const H = 1e-6;

export interface JacobianCheck {
  /** the largest row error */
  err: number;
  /** the row where it is */
  row: number;
  rows: number;
}

/**
 * A random direction of the given length (fixed seed), each component ±[0.5, 1): a row that reads one
 * variable (ba's weight residuals) must not meet a component near 0, where the difference's rounding
 * (~1e-16 |F| / h) would outweigh the row's own J·v.
 */
function direction(n: number): Float64Array {
  return Float64Array.from(randomVector(n, uniform(4243)), (u) => (u < 0.5 ? -1 : 1) * (0.5 + Math.abs(u - 0.5)));
}

/** The largest row error of J·v (and Σ|J v|) against the divided difference of `residuals` along v. */
function worstRow(jv: Float64Array, absJv: Float64Array, residuals: (t: number) => Float64Array): JacobianCheck {
  const plus = residuals(H);
  const minus = residuals(-H);
  if (plus.length !== jv.length) return { err: Infinity, row: -1, rows: jv.length };
  let err = 0;
  let row = -1;
  for (let r = 0; r < jv.length; r++) {
    const fd = (plus[r] - minus[r]) / (2 * H);
    const scale = Math.max(absJv[r], Math.abs(fd));
    // (a non-finite entry or difference counts as a failure, never as a pass)
    const e = !Number.isFinite(jv[r]) || !Number.isFinite(fd) ? Infinity : scale === 0 ? 0 : Math.abs(fd - jv[r]) / scale;
    if (e > err) {
      err = e;
      row = r;
    }
  }
  return { err, row, rows: jv.length };
}

/**
 * ba: the CSR Jacobian of (reprojErr, wErr) with respect to (cams, points, weights), columns laid out
 * cams (11 a camera), points (3 a point), weights; rows reprojErr then wErr.
 */
export function checkBaJacobian(a: BaArgs, J: BaCsr): JacobianCheck {
  const nc = 11 * a.n, np = 3 * a.m;
  const v = direction(nc + np + a.p);
  const rows = 3 * a.p;
  const jv = new Float64Array(rows), absJv = new Float64Array(rows);
  if (J.rowptr.length !== rows + 1) return { err: Infinity, row: -1, rows };
  for (let r = 0; r < rows; r++) {
    for (let e = J.rowptr[r]; e < J.rowptr[r + 1]; e++) {
      const c = J.colidx[e];
      const term = c >= 0 && c < v.length ? J.vals[e] * v[c] : NaN;
      jv[r] += term;
      absJv[r] += Math.abs(term);
    }
  }
  const residuals = (t: number): Float64Array => {
    const moved: BaArgs = {
      ...a,
      cams: a.cams.map((cam, j) => cam.map((x, k) => x + t * v[11 * j + k])),
      points: a.points.map((pt, j) => pt.map((x, k) => x + t * v[nc + 3 * j + k])),
      weights: a.weights.map((w, i) => w + t * v[nc + np + i]),
      reprojErr: new Float64Array(2 * a.p),
      wErr: new Float64Array(a.p),
    };
    baObjective(moved);
    const out = new Float64Array(rows);
    out.set(moved.reprojErr);
    out.set(moved.wErr, 2 * a.p);
    return out;
  };
  return worstRow(jv, absJv, residuals);
}

/**
 * ht: the dense row-major Jacobian [3P × C] of the residuals; complicated (C = 28): columns 0 and 1 are
 * every point's us[i][0] and us[i][1] at once (a residual triple depends on its own us[i] only), then
 * theta; simple (C = 26): theta.
 */
export function checkHtJacobian(a: HtArgs, J: { jac: Float64Array; rows: number; cols: number }): JacobianCheck {
  const off = a.complicated ? 2 : 0;
  const cols = off + a.theta.length;
  const rows = 3 * a.correspondences.length;
  if (J.rows !== rows || J.cols !== cols || J.jac.length !== rows * cols) return { err: Infinity, row: -1, rows };
  const v = direction(cols);
  const jv = new Float64Array(rows), absJv = new Float64Array(rows);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const term = J.jac[r * cols + c] * v[c];
      jv[r] += term;
      absJv[r] += Math.abs(term);
    }
  }
  const residuals = (t: number): Float64Array =>
    htObjective({
      ...a,
      theta: a.theta.map((x, k) => x + t * v[off + k]),
      us: a.us.map(([u0, u1]) => [u0 + t * v[0], u1 + t * v[1]]),
    });
  return worstRow(jv, absJv, residuals);
}
