// Sparse Hessians of partially separable objectives by elements (issue 18): `<head>_elements`
// (src/transform/elements.ts) records, per element, the indices of x it read and its small dense
// Hessian; this module turns the indices into the pattern (every pair of entries one element read, both
// triangles) and each element's places in it (a plan), then adds the elements' Hessians into those
// places. No detection sweep, colouring or check direction: the pattern is read off the indices
// themselves. They depend on loop counters and passive values only, but branches and trip counts may
// depend on anything, so every evaluation compares its indices with those its places were computed
// for: later calls run `<head>_elements_add`, which adds each element's Hessian into the last plan's
// places and gives up (-1) at the first index that is not the plan's; then the elements are recorded
// again and matched against the last few plans, else planned again on the union of the old pattern
// and the new pairs.
import { patternFromRows, patternUnion, type SparsityPattern } from '../runtime/colouring.js';
import type { SparseInfo, SparseMatrix } from './sparse.js';

/**
 * The generated code at the arguments: `record` runs `<head>_elements` into idx and h (the number of
 * elements, or -1 when they have no room); `add` runs `<head>_elements_add`, adding the elements'
 * Hessians into values at a plan's places (the number of elements, or -1 where an index is not the
 * plan's trace's)
 */
export interface ElementSweeps {
  record: (idx: Int32Array, h: Float64Array) => number;
  add: (trace: Int32Array, places: Int32Array, values: Float64Array) => number;
}

/** the places of one run's indices in the pattern */
interface Plan {
  /** the indices the places are for: `count`·sites of them */
  trace: Int32Array;
  count: number;
  /**
   * per element, sites² places in the values: the diagonal slots' first, then the two places (k, l) and
   * (l, k) of each upper slot; the values' length (one past the pattern) for a pair with a site not read
   * or outside x, whose entry is dropped
   */
  places: Int32Array;
}

/** the most runs' indices kept (a branch switching between a few patterns finds its own again) */
const MAX_PLANS = 4;

/** the cached part, per argument shapes */
export interface ElementState {
  sites: number;
  slots: number;
  /** the union of the pattern of every run seen (so every kept plan's places are in it) */
  pattern: SparsityPattern;
  /** entry e's row (COO) */
  rows: Int32Array;
  plans: Plan[];
  /** the sweep's buffers, kept between calls (grown when the elements do not fit) */
  idx: Int32Array;
  h: Float64Array;
  /** the values of the last call asking to reuse them (sparseByElements' reuseValues) */
  values?: Float64Array;
}

/**
 * The n × n Hessian by elements, with the state of an earlier call for these shapes (or none). Returns
 * the matrix and the state to keep. With `reuseValues`, the values are written into the array of the
 * last call that asked the same (overwriting that result's values) instead of a fresh one.
 */
export function sparseByElements(sweeps: ElementSweeps, n: number, sites: number, slots: number, state: ElementState | undefined, reuseValues = false): { matrix: SparseMatrix; state: ElementState } {
  if (state && (state.pattern.n !== n || state.sites !== sites)) state = undefined;
  const t0 = performance.now();
  let how: SparseInfo['pattern'] = 'cached';
  let values: Float64Array | null = null;
  let plannedMs = 0;
  // the last plan used, its indices compared as the Hessians are added in: one pass, nothing recorded
  if (state) {
    const plan = state.plans[0];
    values = valuesFor(state, reuseValues);
    if (sweeps.add(plan.trace, plan.places, values) !== plan.count) values = null;
  }
  if (!values) {
    // (the indices differ, or a first call: recorded, then another kept plan of the same indices, or a new one)
    let idx = state?.idx ?? new Int32Array(sites * Math.max(16, n));
    let h = state?.h ?? new Float64Array(slots * Math.max(16, n));
    let count = sweeps.record(idx, h);
    while (count < 0) {
      idx = new Int32Array(idx.length * 2);
      h = new Float64Array(h.length * 2);
      count = sweeps.record(idx, h);
    }
    const t1 = performance.now();
    const k = state ? state.plans.findIndex((p) => sameTrace(p, idx, count, sites)) : -1;
    if (state && k >= 0) state.plans.unshift(...state.plans.splice(k, 1));
    else {
      how = state ? 'redetected' : 'detected';
      state = planned(idx, count, n, sites, slots, state);
      plannedMs = performance.now() - t1;
    }
    state.idx = idx;
    state.h = h;
    values = valuesFor(state, reuseValues);
    scatter(state, state.plans[0], h, count, values);
  }
  const p = state!.pattern;
  const t3 = performance.now();
  return {
    state: state!,
    matrix: {
      shape: [n, n],
      rows: state!.rows,
      cols: p.colIdx,
      values: values.subarray(0, p.colIdx.length),
      info: { pattern: how, nnz: p.colIdx.length, colours: 0, detectionSweeps: 0, patternMs: plannedMs, colouringMs: 0, evaluationMs: t3 - t0 - plannedMs, method: 'elements', elements: state!.plans[0].count },
    },
  };
}

/**
 * Zeros for the values, one past the pattern (the dropped pairs' place): the state's own array with
 * `reuse`, else a fresh one (at 10⁵ floats it costs more than the evaluation: memory new to the process)
 */
function valuesFor(s: ElementState, reuse: boolean): Float64Array {
  const size = s.pattern.colIdx.length + 1;
  if (!reuse) return new Float64Array(size);
  if (s.values?.length === size) return s.values.fill(0);
  return (s.values = new Float64Array(size));
}

/** the run's indices are the plan's (a site the run did not read, -1, has a zero Hessian: any place serves) */
function sameTrace(p: Plan, idx: Int32Array, count: number, sites: number): boolean {
  if (count !== p.count) return false;
  const t = p.trace;
  for (let k = 0, end = count * sites; k < end; k++) if (idx[k] !== t[k] && idx[k] !== -1) return false;
  return true;
}

/** the pattern joined with these indices' pairs, and the places of these and the kept runs' indices in it */
function planned(idx: Int32Array, count: number, n: number, sites: number, slots: number, old: ElementState | undefined): ElementState {
  const K = sites;
  const trace = idx.slice(0, count * K);
  const runs = [{ trace, count }, ...(old?.plans ?? []).slice(0, MAX_PLANS - 1)];
  const inX = (j: number) => (j >= 0 && j < n ? j : -1);
  const rowSets: Set<number>[] = Array.from({ length: n }, () => new Set());
  for (let e = 0; e < count; e++)
    for (let k = 0; k < K; k++) {
      const a = inX(trace[e * K + k]);
      if (a < 0) continue;
      for (let l = 0; l < K; l++) {
        const b = inX(trace[e * K + l]);
        if (b >= 0) rowSets[a].add(b);
      }
    }
  let pattern = patternFromRows(n, n, rowSets.map((r) => [...r].sort((x, y) => x - y)));
  if (old) pattern = patternUnion(old.pattern, pattern);
  const nnz = pattern.colIdx.length;
  const at = (r: number, c: number): number => {
    if (r < 0 || c < 0) return nnz;
    let lo = pattern.rowPtr[r], hi = pattern.rowPtr[r + 1] - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = pattern.colIdx[mid];
      if (v === c) return mid;
      if (v < c) lo = mid + 1;
      else hi = mid - 1;
    }
    throw new Error(`tsad: internal: (${r}, ${c}) missing from the element pattern`);
  };
  const plans = runs.map(({ trace: t, count: m }) => {
    const places = new Int32Array(m * K * K);
    for (let e = 0; e < m; e++) {
      const site = (k: number) => inX(t[e * K + k]);
      const base = e * K * K;
      for (let k = 0; k < K; k++) places[base + k] = at(site(k), site(k));
      let q = base + K;
      for (let k = 0; k < K; k++)
        for (let l = k + 1; l < K; l++) {
          places[q++] = at(site(k), site(l));
          places[q++] = at(site(l), site(k));
        }
    }
    return { trace: t, count: m, places };
  });
  const rows = new Int32Array(nnz);
  for (let i = 0; i < n; i++) rows.fill(i, pattern.rowPtr[i], pattern.rowPtr[i + 1]);
  return { sites, slots, pattern, rows, plans, idx, h: new Float64Array(0) };
}

/** the recorded elements' Hessians added into their places */
function scatter(s: ElementState, plan: Plan, h: Float64Array, count: number, values: Float64Array): void {
  const K = s.sites, S = s.slots, P = plan.places;
  for (let e = 0; e < count; e++) {
    const p = e * K * K, q = e * S;
    for (let k = 0; k < K; k++) values[P[p + k]] += h[q + k];
    for (let t = 0; t < S - K; t++) {
      const w = h[q + K + t];
      values[P[p + K + 2 * t]] += w;
      values[P[p + K + 2 * t + 1]] += w;
    }
  }
}
