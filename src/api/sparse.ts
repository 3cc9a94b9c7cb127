// Sparse Jacobians and Hessians (issue 18, unstructured sparsity): the sparsity pattern detected by
// sweeps of the derivative code, the columns coloured (src/runtime/colouring.ts), then one compressed
// sweep per evaluation (vector tangent, or the gradient's vector tangent for Hessians: one direction per
// colour) and the entries read back. The runtime API (runtime.ts) and the CLI (`--sparse`) share this.
//
// Pattern detection is structural, not numerical: each direction of a sweep seeds NaN on one column
// and zero elsewhere (32 directions a sweep), and the pattern of that column is where NaN arrives (for
// more than a few hundred columns, on classes of columns: detectPattern).
// NaN survives multiplication by zero (NaN·0 is NaN), so an entry that is zero only at this point (the
// ∂/∂x of x² at x = 0: 2·x·ẋ) is still found; a value 0 would be lost, a 1 would cancel. The tangent
// code carries NaN as it would any number: the derivative rules' partials are primal expressions
// (src/rules/table.ts: `b === 0 ? 0 : …` tests the primal b, never a tangent) and a tangent is always
// the sum of partial × tangent; where a test of a tangent did exist, `NaN !== 0` takes the non-zero
// side. A partial that is ±Infinity or NaN at this point makes extra entries (∞·0 is NaN): a pattern
// too large costs colours, never a wrong value.
//
// A detected pattern holds for the branches and trip counts of the run that found it. So every
// evaluation carries one more direction, a random v, in the same sweep: the recovered matrix times v
// must equal the swept product M·v (to 1e-8 of the terms summed). A pattern missing an entry fails
// this (with probability one for a random v): the pattern is detected again at this point, joined to
// the old one (conservative over the branches seen so far), coloured again and the matrix evaluated
// again; if that fails too, an Error (never a silently wrong matrix). A stale pattern with extra
// entries is merely larger than needed, and still right.
import { zeros } from '../runtime/arrays.js';
import { columnColouring, patternFromRows, patternUnion, recoveryIndex, starColouring, symmetricPattern, type Colouring, type SparsityPattern } from '../runtime/colouring.js';

/**
 * A sweep of the derivative code: `nb` directions over the n floats of the independents, packed (float j
 * of direction k at j·nb + k), to the m outputs' tangents packed the same way (output i at i·nb + k).
 * The sweep may hand `seeds` to the derivative code as its tangent argument, which may write into it:
 * the caller writes every entry again before the next sweep.
 */
export type PackedSweep = (seeds: ArrayLike<number>, nb: number) => ArrayLike<number>;

/**
 * A sparse matrix in coordinates (COO), entries sorted by row then column (so `rows` is also CSR's
 * order: row i's entries are contiguous). A Hessian lists both triangles. Entries of the pattern that
 * are zero at this point are listed with the value 0. `values` is the call's own; `rows` and `cols` are
 * the cached pattern's, shared by every result with that pattern (copies cost more than the rest of an
 * evaluation at n = 10⁴): copy them before changing them.
 */
export interface SparseMatrix {
  shape: [number, number];
  rows: Int32Array;
  cols: Int32Array;
  values: Float64Array;
  /** CSR's row starts (entries of row i at rowPtr[i] … rowPtr[i + 1] - 1), where the method has them at hand (blocks); csrOf gives them always */
  rowPtr?: Int32Array;
  info: SparseInfo;
}

/** how a sparse result was obtained; times in ms, of this call */
export interface SparseInfo {
  /** 'detected': first call for these shapes; 'cached': the pattern of an earlier call verified; 'redetected': it missed an entry here, detected again */
  pattern: 'detected' | 'cached' | 'redetected';
  /** entries in the pattern */
  nnz: number;
  /** colours, the directions of the compressed sweep (one more carries the check's random direction) */
  colours: number;
  /** detection sweeps of this call (0 when cached) */
  detectionSweeps: number;
  patternMs: number;
  colouringMs: number;
  /** the compressed sweep, the recovery of the entries and the check against the random direction (by elements: their sweep and the additions) */
  evaluationMs: number;
  /** how the entries were computed: compressed sweeps of coloured columns, element Hessians added (src/api/elements.ts), or dense blocks (src/api/blocks.ts) */
  method?: 'colouring' | 'elements' | 'blocks';
  /** the elements summed (method 'elements') */
  elements?: number;
  /** the blocks computed, one per iteration of a loop over independent items (method 'blocks': src/api/blocks.ts) */
  blocks?: number;
}

/** the cached part, per derivative and argument shapes */
export interface SparseState {
  kind: 'jacobian' | 'hessian';
  pattern: SparsityPattern;
  colouring: Colouring;
  /** entry e's place in the compressed sweep's output (stride colours + 1) */
  recovery: Int32Array;
  rows: Int32Array;
  /** the state of the random directions of the checks (xorshift32, advanced in a local: a closure's
   * uint32 state would box a number per draw) */
  seed: number;
  /**
   * evaluate's buffers, made on its first use. `seeds` is a plain array (packed doubles), which a vector
   * sweep over one number[] passes as it is (a copy of n·nb floats per call cost more than the fill).
   */
  scratch?: { seeds: number[]; v: Float64Array; product: Float64Array; got: Float64Array; terms: Float64Array };
}

/** columns per detection sweep (the vector mode's usual width) */
export const DETECTION_WIDTH = 32;

/**
 * Pairwise coprime moduli for detection by residue classes (detectPattern): each contributes one
 * direction per residue.
 */
const MODULI = [32, 33, 35, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79];

/**
 * The pattern of the m × n matrix the sweep multiplies by (head comment: NaN seeds). Exactly, one column
 * per direction, up to a few hundred columns; beyond, by residue classes, far fewer directions: for
 * pairwise coprime moduli b₁ … b_L, direction (ℓ, r) seeds NaN on every column j ≡ r (mod b_ℓ), and row
 * i's result is NaN where some entry of row i falls in that class. A column is kept in row i where every
 * class holding it came out NaN: every entry of the row is kept (its classes all come out NaN), so the
 * pattern is never too small. A column not in the row is kept only if each of its L residues is shared
 * by an entry of the row: with d entries a row, about d^L · n / Π b_ℓ such columns a row; the moduli are
 * taken until Π b_ℓ ≥ 10⁶ · n (for n = 10⁴, seven moduli, 268 directions instead of 10⁴: on a
 * pentadiagonal Hessian about one row in 150 gets an extra entry, whose value is then exactly 0).
 */
export function detectPattern(sweep: PackedSweep, m: number, n: number, exact = n <= 8 * DETECTION_WIDTH): { pattern: SparsityPattern; sweeps: number } {
  const rows: number[][] = Array.from({ length: m }, () => []);
  let sweeps = 0;
  if (exact) {
    for (let j0 = 0; j0 < n; j0 += DETECTION_WIDTH) {
      const nb = Math.min(DETECTION_WIDTH, n - j0);
      const seeds = new Float64Array(n * nb);
      for (let k = 0; k < nb; k++) seeds[(j0 + k) * nb + k] = NaN;
      const out = sweep(seeds, nb);
      sweeps++;
      for (let i = 0; i < m; i++) for (let k = 0; k < nb; k++) if (Number.isNaN(out[i * nb + k])) rows[i].push(j0 + k);
    }
    return { pattern: patternFromRows(m, n, rows), sweeps };
  }
  const moduli: number[] = [];
  for (let product = 1; product < 1e6 * n && moduli.length < MODULI.length; product *= moduli[moduli.length - 1]) moduli.push(MODULI[moduli.length]);
  const base = moduli.map((_, l) => moduli.slice(0, l).reduce((a, b) => a + b, 0));
  const T = base[moduli.length - 1] + moduli[moduli.length - 1];
  // hit[i·T + t]: direction t came out NaN in row i
  const hit = new Uint8Array(m * T);
  for (let t0 = 0; t0 < T; t0 += DETECTION_WIDTH) {
    const nb = Math.min(DETECTION_WIDTH, T - t0);
    const seeds = new Float64Array(n * nb);
    for (let k = 0; k < nb; k++) {
      const t = t0 + k;
      let l = moduli.length - 1;
      while (base[l] > t) l--;
      for (let j = t - base[l]; j < n; j += moduli[l]) seeds[j * nb + k] = NaN;
    }
    const out = sweep(seeds, nb);
    sweeps++;
    for (let i = 0; i < m; i++) for (let k = 0; k < nb; k++) if (Number.isNaN(out[i * nb + k])) hit[i * T + t0 + k] = 1;
  }
  // candidates from the two moduli with the fewest NaN classes in the row, by the Chinese remainder
  // theorem (residues r₁, r₂ fix j modulo b₁·b₂), each checked against the other moduli
  const inverse = (a: number, b: number) => {
    for (let k = 1; k < b; k++) if ((a * k) % b === 1) return k;
    return 0;
  };
  const L = moduli.length;
  const inv = moduli.map((b1) => moduli.map((b2) => (b1 === b2 ? 0 : inverse(b1 % b2, b2))));
  const hits = new Int32Array(L);
  const keep = (i: number, j: number) => {
    for (let l = 0; l < L; l++) if (!hit[i * T + base[l] + (j % moduli[l])]) return false;
    return true;
  };
  for (let i = 0; i < m; i++) {
    for (let l = 0; l < L; l++) {
      hits[l] = 0;
      for (let r = 0; r < moduli[l]; r++) hits[l] += hit[i * T + base[l] + r];
    }
    let l1 = 0;
    for (let l = 1; l < L; l++) if (hits[l] < hits[l1]) l1 = l;
    let l2 = l1 === 0 ? 1 : 0;
    for (let l = 0; l < L; l++) if (l !== l1 && hits[l] < hits[l2]) l2 = l;
    const b1 = moduli[l1], b2 = moduli[l2], period = b1 * b2;
    const found: number[] = [];
    for (let r1 = 0; r1 < b1; r1++) {
      if (!hit[i * T + base[l1] + r1]) continue;
      for (let r2 = 0; r2 < b2; r2++) {
        if (!hit[i * T + base[l2] + r2]) continue;
        // j ≡ r1 (mod b1), j ≡ r2 (mod b2)
        const j0 = r1 + b1 * ((((r2 - r1) % b2) + b2) * inv[l1][l2] % b2);
        for (let j = j0; j < n; j += period) if (keep(i, j)) found.push(j);
      }
    }
    rows[i] = found.sort((x, y) => x - y);
  }
  return { pattern: patternFromRows(m, n, rows), sweeps };
}

/** colouring and recovery plan of a pattern (a Hessian's made symmetric first) */
function plan(kind: SparseState['kind'], detected: SparsityPattern, seed: number): SparseState {
  const pattern = kind === 'hessian' ? symmetricPattern(detected) : detected;
  const colouring = kind === 'hessian' ? starColouring(pattern) : columnColouring(pattern);
  const rows = new Int32Array(pattern.colIdx.length);
  for (let i = 0; i < pattern.m; i++) rows.fill(i, pattern.rowPtr[i], pattern.rowPtr[i + 1]);
  return { kind, pattern, colouring, recovery: recoveryIndex(pattern, colouring, colouring.count + 1, kind === 'hessian'), rows, seed };
}

/**
 * The sparse Jacobian (m × n) or Hessian (n × n) the sweep multiplies by, with the state of an earlier
 * call for the same derivative and shapes (or none: detected now). Returns the matrix and the state to
 * keep. Throws where even a pattern detected at this point fails the check (head comment).
 */
export function sparseAt(kind: SparseState['kind'], sweep: PackedSweep, m: number, n: number, state: SparseState | undefined): { matrix: SparseMatrix; state: SparseState } {
  // (a result whose length depends on the values, a filter's, changes the matrix's shape: start again)
  if (state && (state.pattern.m !== m || state.pattern.n !== n)) state = undefined;
  let patternMs = 0, colouringMs = 0, detectionSweeps = 0;
  let how: SparseInfo['pattern'] = state ? 'cached' : 'detected';
  const detect = (old: SparseState | undefined): SparseState => {
    const t0 = performance.now();
    const d = detectPattern(sweep, m, n);
    const t1 = performance.now();
    const s = plan(kind, old ? patternUnion(old.pattern, kind === 'hessian' ? symmetricPattern(d.pattern) : d.pattern) : d.pattern, old?.seed ?? 0x5ba75e1);
    patternMs += t1 - t0;
    colouringMs += performance.now() - t1;
    detectionSweeps += d.sweeps;
    return s;
  };
  let s = state ?? detect(undefined);
  let evaluationMs = 0;
  const timed = () => {
    const t0 = performance.now();
    const e = evaluate(s, sweep, n);
    evaluationMs += performance.now() - t0;
    return e;
  };
  let r = timed();
  if (!r.ok) {
    how = 'redetected';
    s = detect(s);
    r = timed();
    // (the derivative code's own rounding, where it cancels (x − tanh x, many times over), can differ
    // between a unit seed and v by more than the terms suggest: not a missing entry if the sweep is as
    // far from linear at this point)
    if (!r.ok && !mismatch(s.pattern, r.values, s.scratch!.v, s.scratch!.product, undefined, roundingNoise(sweep, n, m, s.scratch!.v))) r = { ok: true, values: r.values };
    if (!r.ok)
      throw new Error(`tsad: the sparse ${kind === 'hessian' ? 'Hessian' : 'Jacobian'} fails its check even with a pattern detected at this point: the matrix recovered from ${s.colouring.count} compressed directions, times a random direction, differs from the product the same sweep computed (row ${r.row}: ${r.got} vs ${r.want}). The derivative code does not propagate NaN structurally here (a hand-written rule testing a tangent?), or this is a bug in tsad: please report it with the function; the dense ${kind === 'hessian' ? 'hessian' : 'jacobian'} is not affected`);
  }
  const p = s.pattern;
  return {
    state: s,
    matrix: { shape: [p.m, p.n], rows: s.rows, cols: p.colIdx, values: r.values, info: { pattern: how, nnz: p.colIdx.length, colours: s.colouring.count, detectionSweeps, patternMs, colouringMs, evaluationMs, method: 'colouring' } },
  };
}

/** one compressed sweep with the check's random direction last; the entries, and whether the check passed */
function evaluate(s: SparseState, sweep: PackedSweep, n: number): { ok: true; values: Float64Array } | { ok: false; values: Float64Array; row: number; got: number; want: number } {
  const c = s.colouring, nb = c.count + 1, m = s.pattern.m;
  // (scratch kept between calls: allocating and zeroing these anew cost more than filling them)
  const scratch = (s.scratch ??= { seeds: zeros(n * nb), v: new Float64Array(n), product: new Float64Array(m), got: new Float64Array(m), terms: new Float64Array(m) });
  const { seeds, v, product } = scratch;
  let a = s.seed;
  // (every entry written: the last sweep may have written into the seeds, PackedSweep)
  for (let j = 0, at = 0; j < n; j++, at += nb) {
    for (let k = 0; k < c.count; k++) seeds[at + k] = 0;
    seeds[at + c.colour[j]] = 1;
    a = xorshift(a);
    seeds[at + c.count] = v[j] = (a >>> 0) / 2147483648 - 1;
  }
  s.seed = a;
  const out = sweep(seeds, nb);
  const values = new Float64Array(s.recovery.length);
  for (let e = 0; e < values.length; e++) values[e] = out[s.recovery[e]];
  for (let i = 0; i < m; i++) product[i] = out[i * nb + c.count];
  const bad = mismatch(s.pattern, values, v, product, scratch);
  return bad ? { ok: false, values, ...bad } : { ok: true, values };
}

/**
 * Where (if anywhere) the matrix of pattern p and these values, times v, differs from `product`: row by
 * row, to 1e-8 of the terms summed and 1e-12 of the largest row's (the compressed sweep rounds as the
 * product's does, on intermediate values that may be larger than the entries). A non-finite entry of
 * the product must be non-finite in the recovered product too, and the reverse.
 */
export function mismatch(p: SparsityPattern, values: Float64Array, v: ArrayLike<number>, product: ArrayLike<number>, buffers?: { got: Float64Array; terms: Float64Array }, noise?: Float64Array): { row: number; got: number; want: number } | null {
  const got = buffers?.got ?? new Float64Array(p.m), terms = buffers?.terms ?? new Float64Array(p.m);
  let largest = 0;
  for (let i = 0; i < p.m; i++) {
    let sum = 0, size = 0;
    for (let e = p.rowPtr[i]; e < p.rowPtr[i + 1]; e++) {
      const t = values[e] * v[p.colIdx[e]];
      sum += t;
      size += Math.abs(t);
    }
    got[i] = sum;
    terms[i] = size;
    if (Number.isFinite(size)) largest = Math.max(largest, size);
  }
  for (let i = 0; i < p.m; i++) {
    const want = product[i];
    const ok = Number.isFinite(want) || Number.isFinite(got[i]) ? Math.abs(got[i] - want) <= 1e-8 * (terms[i] + Math.abs(want)) + 1e-12 * largest + 64 * (noise?.[i] ?? 0) : true;
    if (!ok) return { row: i, got: got[i], want };
  }
  return null;
}

/** xorshift32's next state: integer operations only (Park–Miller's float remainder cost more than the seed loop it feeds) */
function xorshift(a: number): number {
  a ^= a << 13;
  a ^= a >>> 17;
  return a ^ (a << 5);
}

/**
 * How far from linear the sweep is at this point, output by output: |L(v) + L(w) − L(v + w)| for a random
 * w, in one sweep of three directions. Exact arithmetic gives 0; the gap is the rounding of the
 * derivative code's intermediate values, which a unit seed and v round differently.
 */
function roundingNoise(sweep: PackedSweep, n: number, m: number, v: ArrayLike<number>): Float64Array {
  const seeds = zeros(n * 3);
  let a = 0x2545f491;
  for (let j = 0; j < n; j++) {
    a = xorshift(a);
    const w = (a >>> 0) / 2147483648 - 1;
    seeds[3 * j] = v[j];
    seeds[3 * j + 1] = w;
    seeds[3 * j + 2] = v[j] + w;
  }
  const out = sweep(seeds, 3);
  const noise = new Float64Array(m);
  for (let i = 0; i < m; i++) noise[i] = Math.abs(out[3 * i] + out[3 * i + 1] - out[3 * i + 2]);
  return noise;
}

/** the matrix's diagonal (of a square one), zeros where the pattern has none */
export function diagonalOf(M: SparseMatrix): Float64Array {
  const d = new Float64Array(Math.min(M.shape[0], M.shape[1]));
  for (let e = 0; e < M.values.length; e++) if (M.rows[e] === M.cols[e]) d[M.rows[e]] = M.values[e];
  return d;
}

/** M with row r moved to place rowAt[r] and column c to colAt[c] (the caller's key order: sweeps.ts, ownOrder), entries sorted again */
export function renumbered(M: SparseMatrix, rowAt: ArrayLike<number>, colAt: ArrayLike<number>): SparseMatrix {
  const same = (p: ArrayLike<number>) => {
    for (let i = 0; i < p.length; i++) if (p[i] !== i) return false;
    return true;
  };
  if (same(rowAt) && same(colAt)) return M;
  const order = Array.from({ length: M.values.length }, (_, e) => e).sort((a, b) => rowAt[M.rows[a]] - rowAt[M.rows[b]] || colAt[M.cols[a]] - colAt[M.cols[b]]);
  return {
    ...M,
    rows: Int32Array.from(order, (e) => rowAt[M.rows[e]]),
    cols: Int32Array.from(order, (e) => colAt[M.cols[e]]),
    values: Float64Array.from(order, (e) => M.values[e]),
  };
}

/** the inverse of a permutation: where each index goes (for renumbered, from ownOrder of sweeps.ts) */
export function positions(order: readonly number[]): Int32Array {
  const at = new Int32Array(order.length);
  order.forEach((from, to) => (at[from] = to));
  return at;
}

/** The matrix in compressed rows (CSR): row i's entries at rowPtr[i] … rowPtr[i + 1] - 1, its columns and values shared with M. */
export function csrOf(M: SparseMatrix): { rowPtr: Int32Array; cols: Int32Array; values: Float64Array } {
  let rowPtr = M.rowPtr;
  if (!rowPtr) {
    rowPtr = new Int32Array(M.shape[0] + 1);
    for (let e = 0; e < M.rows.length; e++) rowPtr[M.rows[e] + 1]++;
    for (let i = 0; i < M.shape[0]; i++) rowPtr[i + 1] += rowPtr[i];
  }
  return { rowPtr, cols: M.cols, values: M.values };
}

/** the dense rows of a sparse matrix (tests, small matrices) */
export function toDense(M: SparseMatrix): number[][] {
  const D = Array.from({ length: M.shape[0] }, () => new Array<number>(M.shape[1]).fill(0));
  for (let e = 0; e < M.values.length; e++) D[M.rows[e]][M.cols[e]] = M.values[e];
  return D;
}
