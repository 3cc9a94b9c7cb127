// Peer "fd-central": central divided differences of the tsc-compiled primal, float64.
//   g_j = (f(x + h e_j) - f(x - h e_j)) / 2h,   h = cbrt(eps) max(1, |x_j|)
// kmeans needs G and diag(H): both come from the same two evaluations per column,
//   H_jj = (f(x + h e_j) - 2 f(x) + f(x - h e_j)) / h^2   (h = 1e-4; the cost is piecewise quadratic).
// One call costs 1 + 2n primal evaluations for n independents. When that exceeds the budget the
// orchestrator gives (fdBudgetMs), a call computes an evenly spread subset of the columns and its
// time is multiplied by (1 + 2n) / (1 + 2 * columns): cost per column, extrapolated to all columns.
import type { GmmArgs } from '../../../evals/gmm/io.js';
import { gmmObjective } from '../../../evals/gmm/objective.js';
import type { KmeansArgs } from '../../../evals/kmeans/io.js';
import { kmeansCost } from '../../../evals/kmeans/objective.js';
import type { LlsqArgs } from '../../../evals/llsq/io.js';
import { llsq } from '../../../evals/llsq/objective.js';
import type { LseArgs } from '../../../evals/lse/io.js';
import { logsumexp } from '../../../evals/lse/objective.js';
import type { Problem } from '../problems.js';
import type { PeerImpl, PeerInstance } from '../protocol.js';

interface Cell {
  arr: number[];
  i: number;
}

function cellsOf(rows: number[][]): Cell[] {
  const out: Cell[] = [];
  for (const r of rows) for (let i = 0; i < r.length; i++) out.push({ arr: r, i });
  return out;
}

function setup(p: Problem, fdBudgetMs: number): PeerInstance {
  let f: () => number;
  let cells: Cell[];
  const second = p.spec.eval === 'kmeans';
  switch (p.spec.eval) {
    case 'lse': {
      const a = p.args as LseArgs;
      f = () => logsumexp(a.x);
      cells = cellsOf([a.x]);
      break;
    }
    case 'llsq': {
      const a = p.args as LlsqArgs;
      f = () => llsq(a.x, a.n);
      cells = cellsOf([a.x]);
      break;
    }
    case 'gmm': {
      const a = p.args as GmmArgs;
      f = () => gmmObjective(a.alpha, a.mu, a.q, a.l, a.x, a.m, a.gamma);
      cells = [...cellsOf([a.alpha]), ...cellsOf(a.mu), ...cellsOf(a.q), ...cellsOf(a.l)];
      break;
    }
    case 'kmeans': {
      const a = p.args as KmeansArgs;
      f = () => kmeansCost(a.centroids, a.points);
      cells = cellsOf(a.centroids);
      break;
    }
  }
  const n = cells.length;
  // time of one primal evaluation (after a short warm-up)
  for (let r = 0; r < 3; r++) f();
  let reps = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < 30 || reps < 3) {
    f();
    reps++;
  }
  const tp = (performance.now() - t0) / reps;
  // all columns if they fit the budget, or if at least half of them would
  const fit = Math.max(1, Math.floor((fdBudgetMs / tp - 1) / 2));
  const full = fit >= n / 2;
  const nc = full ? n : fit;
  const columns = Int32Array.from({ length: nc }, (_, t) => (full ? t : Math.floor((t * n) / nc)));
  const grad = new Float64Array(nc);
  const hess = second ? new Float64Array(nc) : null;
  let value = NaN;
  const run = (): number => {
    const f0 = f();
    value = f0;
    for (let t = 0; t < nc; t++) {
      const c = cells[columns[t]];
      const x = c.arr[c.i];
      const h0 = second ? 1e-4 : 6.0554544523933395e-6 * Math.max(1, Math.abs(x));
      const xp = x + h0, xm = x - h0;
      c.arr[c.i] = xp;
      const fp = f();
      c.arr[c.i] = xm;
      const fm = f();
      c.arr[c.i] = x;
      const hh = (xp - xm) / 2; // the representable step
      if (hess) {
        const hd = (fp - 2 * f0 + fm) / (hh * hh);
        hess[t] = hd;
        grad[t] = (fp - fm) / (2 * hh) / hd; // dir = G / H
      } else {
        grad[t] = (fp - fm) / (2 * hh);
      }
    }
    return grad[0];
  };
  return {
    grad: run,
    check: () => ({ value, grad, columns: full ? undefined : columns }),
    gradScale: (1 + 2 * n) / (1 + 2 * nc),
    notes: full ? [`all ${n} columns`] : [`${nc} of ${n} columns timed, extrapolated ×${((1 + 2 * n) / (1 + 2 * nc)).toFixed(1)}`],
  };
}

export const peer: PeerImpl = {
  async init() {
    return { library: 'central divided differences', dtype: 'float64', code: 'tsc-compiled primal, 1 + 2n evaluations' };
  },
  setup: (p, o) => setup(p, o.fdBudgetMs),
};
