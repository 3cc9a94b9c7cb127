// Sparse Jacobians by blocks (issue 18): `<head>_blocks` (src/transform/blocks.ts) records, for each
// iteration of the head's loops over independent items, the rows it wrote, the columns it read and
// its dense block; this module turns the rows and columns into the pattern (sorted by row then column)
// and each block entry's place in it (a plan), then puts the blocks' values in their places. No
// detection sweep, colouring or check direction: the pattern is read off the indices themselves. Rows
// and columns depend on passive values only, but those may change between calls, so each call compares
// the indices recorded with the plan's and plans again where they differ. A row written by two
// iterations means the iterations were not independent: the caller falls back to colouring.
import { Printer, printTy } from '../backend/print.js';
import { forEachExpr } from '../ir/util.js';
import { TsadError } from '../frontend/diagnostics.js';
import { patternFromRows, type SparsityPattern } from '../runtime/colouring.js';
import { blockJacobianFunc, type BlockLoop } from '../transform/blocks.js';
import { TransformError } from '../transform/tangent.js';
import { compile, frontEnd, type SourceInput } from './compile.js';
import { formatDiagnostic } from '../frontend/diagnostics.js';
import { loadGenerated } from './load.js';
import { mismatch, sparseAt, type SparseInfo, type SparseMatrix } from './sparse.js';
import { generatedOf, independentCount, outputCount, outputTangent, packedSweep, type Generated } from './sweeps.js';
import { clone, flatten, floatCount, randomLike, rng } from './values.js';

/** `<head>_blocks` printed alone (it needs nothing from the runtime), or why the head has not the form */
export type BlocksResult = { code: string; name: string; loops: BlockLoop[] } | { refused: string };

/**
 * The block Jacobian code of `head` with respect to the number arrays `wrt`, its rows the floats of the
 * `of` arguments in order (['return']: of the array the head makes and returns).
 */
export function compileBlocks(input: SourceInput, options: { head: string; wrt: readonly string[]; of: readonly string[]; js?: boolean }): BlocksResult {
  let mod;
  try {
    mod = frontEnd(input);
  } catch (e) {
    if (e instanceof TsadError) return { refused: e.diagnostics[0]?.message ?? 'the front end failed' };
    throw e;
  }
  const head = mod.funcs.get(options.head);
  if (!head) return { refused: `no function '${options.head}'` };
  const name = `${options.head}_blocks`;
  try {
    const b = blockJacobianFunc(mod, head, options.wrt, options.of, name);
    // (with the module constants it reads, and those their values read)
    const used = new Set<string>();
    const add = (g: string) => {
      if (used.has(g)) return;
      used.add(g);
      const init = mod.globals.get(g)?.init;
      if (init) forEachExpr(init, (x) => x.k === 'global' && add(x.name));
    };
    b.globals.forEach(add);
    const ambient = [...used].find((g) => !mod.globals.get(g)?.init);
    if (ambient) return { refused: `not a loop over independent items: '${ambient}', data bound at run time` };
    const p = new Printer({ js: options.js });
    for (const g of mod.globals.values()) if (used.has(g.name)) p.line(`const ${g.name}${options.js ? '' : `: ${printTy(g.ty)}`} = ${p.expr(g.init!)};`);
    if (used.size) p.line('');
    p.func(b.func);
    return { code: p.text(), name, loops: b.loops };
  } catch (e) {
    if (e instanceof TransformError) return { refused: e.message + (e.node?.loc ? ` (line ${e.node.loc.line})` : '') };
    throw e;
  }
}

/** `<head>_blocks` at the arguments, with its buffers (see src/transform/blocks.ts) */
export type BlockRun = (colAt: Int32Array[], rowAt: Int32Array, counts: Int32Array, rows: Int32Array, cols: Int32Array, vals: Float64Array) => number;

/** the iterations were not independent at these arguments (a row written by two of them): use another method */
export class NotBlocks extends Error {}

/** the places of one run's indices in the pattern */
interface Plan {
  counts: Int32Array;
  rows: Int32Array;
  cols: Int32Array;
  m: number;
  n: number;
  pattern: SparsityPattern;
  /** entry e's row (COO) */
  cooRows: Int32Array;
  /** per block value (in the order recorded), its place in the values, or -1 (a row or column not read or written) */
  place: Int32Array;
  /** every place gets one block value exactly: the values are assigned, not summed */
  once: boolean;
  /** block value e goes to place e: the blocks, in the order recorded, are the matrix's values */
  identity: boolean;
}

/** the cached part, per argument shapes */
export interface BlockState {
  loops: BlockLoop[];
  counts: Int32Array;
  rows: Int32Array;
  cols: Int32Array;
  vals: Float64Array;
  plan?: Plan;
  values?: Float64Array;
}

export function blockState(loops: BlockLoop[]): BlockState {
  const J = Math.max(...loops.map((l) => l.outputs)), K = Math.max(...loops.map((l) => l.inputs));
  return { loops, counts: new Int32Array(loops.length), rows: new Int32Array(64 * J), cols: new Int32Array(64 * K), vals: new Float64Array(64 * J * K) };
}

/**
 * The m × n Jacobian by blocks. `colAt`: for each independent, its rows' first columns (a nested
 * array) or its own (`[start]`); `rowAt`: each output's first row. With `reuseValues`, the values are
 * written into the array of the last call that asked the same instead of a fresh one.
 */
export function sparseByBlocks(run: BlockRun, m: number, n: number, colAt: Int32Array[], rowAt: Int32Array, state: BlockState, reuseValues = false): SparseMatrix {
  const t0 = performance.now();
  let s = state;
  s.counts.fill(0);
  while (run(colAt, rowAt, s.counts, s.rows, s.cols, s.vals) < 0) {
    s.rows = new Int32Array(s.rows.length * 2);
    s.cols = new Int32Array(s.cols.length * 2);
    s.vals = new Float64Array(s.vals.length * 2);
    s.counts.fill(0);
  }
  const used = extent(s);
  let how: SparseInfo['pattern'] = 'cached';
  let planMs = 0;
  if (!s.plan || !sameTrace(s.plan, s, used, m, n)) {
    const t1 = performance.now();
    how = s.plan ? 'redetected' : 'detected';
    s.plan = planned(s, used, m, n);
    planMs = performance.now() - t1;
  }
  const p = s.plan;
  const nnz = p.pattern.colIdx.length;
  let values: Float64Array;
  if (reuseValues && s.values?.length === nnz) values = p.once ? s.values : s.values.fill(0);
  else values = new Float64Array(nnz);
  if (reuseValues) s.values = values;
  const place = p.place, vals = s.vals;
  if (p.identity) values.set(vals.subarray(0, nnz));
  else if (p.once) {
    for (let e = 0; e < used.v; e++) {
      const at = place[e];
      if (at >= 0) values[at] = vals[e];
    }
  } else
    for (let e = 0; e < used.v; e++) {
      const at = place[e];
      if (at >= 0) values[at] += vals[e];
    }
  const blocks = s.counts.reduce((a, b) => a + b, 0);
  const t2 = performance.now();
  return {
    shape: [m, n],
    rows: p.cooRows,
    cols: p.pattern.colIdx,
    values,
    rowPtr: p.pattern.rowPtr,
    info: { pattern: how, nnz, colours: 0, detectionSweeps: 0, patternMs: planMs, colouringMs: 0, evaluationMs: t2 - t0 - planMs, method: 'blocks', blocks },
  };
}

/** the rows, columns and values the run recorded */
function extent(s: BlockState): { r: number; c: number; v: number } {
  let r = 0, c = 0, v = 0;
  s.loops.forEach((l, k) => {
    r += s.counts[k] * l.outputs;
    c += s.counts[k] * l.inputs;
    v += s.counts[k] * l.outputs * l.inputs;
  });
  return { r, c, v };
}

function sameTrace(p: Plan, s: BlockState, used: { r: number; c: number }, m: number, n: number): boolean {
  if (p.m !== m || p.n !== n || p.rows.length !== used.r || p.cols.length !== used.c) return false;
  for (let k = 0; k < s.counts.length; k++) if (p.counts[k] !== s.counts[k]) return false;
  const a = s.rows, b = p.rows;
  for (let i = 0; i < used.r; i++) if (a[i] !== b[i]) return false;
  const c = s.cols, d = p.cols;
  for (let i = 0; i < used.c; i++) if (c[i] !== d[i]) return false;
  return true;
}

/** the pattern of the recorded blocks and each block value's place in it; NotBlocks where a row is written twice */
function planned(s: BlockState, used: { r: number; c: number; v: number }, m: number, n: number): Plan {
  const owner = new Int32Array(m).fill(-1);
  const rowCols: number[][] = Array.from({ length: m }, () => []);
  let r0 = 0, c0 = 0, block = 0;
  const inside = (x: number, size: number) => x >= 0 && x < size;
  s.loops.forEach((l, k) => {
    for (let b = 0; b < s.counts[k]; b++, block++, r0 += l.outputs, c0 += l.inputs)
      for (let j = 0; j < l.outputs; j++) {
        const row = s.rows[r0 + j];
        if (row === -2) throw new NotBlocks(`an iteration of ${loopText(l)} writes past the end of a number[] output (which grows it)`);
        if (!inside(row, m)) continue;
        if (owner[row] >= 0) throw new NotBlocks(`row ${row} is written ${owner[row] === block ? `twice by one iteration of ${loopText(l)}` : owner[row] >= block - b ? `by two iterations of ${loopText(l)}` : 'by two loops'}: the iterations are not independent at these arguments`);
        owner[row] = block;
        for (let q = 0; q < l.inputs; q++) {
          const col = s.cols[c0 + q];
          if (inside(col, n)) rowCols[row].push(col);
        }
      }
  });
  const pattern = patternFromRows(m, n, rowCols.map((cs) => [...new Set(cs)].sort((x, y) => x - y)));
  const at = (row: number, col: number): number => {
    let lo = pattern.rowPtr[row], hi = pattern.rowPtr[row + 1] - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = pattern.colIdx[mid];
      if (v === col) return mid;
      if (v < col) lo = mid + 1;
      else hi = mid - 1;
    }
    throw new Error(`tsad: internal: (${row}, ${col}) missing from the block pattern`);
  };
  const place = new Int32Array(used.v);
  const hits = new Uint8Array(pattern.colIdx.length);
  let once = true;
  let v0 = 0;
  r0 = 0;
  c0 = 0;
  s.loops.forEach((l, k) => {
    for (let b = 0; b < s.counts[k]; b++, r0 += l.outputs, c0 += l.inputs)
      for (let j = 0; j < l.outputs; j++)
        for (let q = 0; q < l.inputs; q++, v0++) {
          const row = s.rows[r0 + j], col = s.cols[c0 + q];
          if (!inside(row, m) || !inside(col, n)) {
            place[v0] = -1;
            continue;
          }
          const e = at(row, col);
          place[v0] = e;
          if (hits[e]++) once = false;
        }
  });
  const cooRows = new Int32Array(pattern.colIdx.length);
  for (let i = 0; i < m; i++) cooRows.fill(i, pattern.rowPtr[i], pattern.rowPtr[i + 1]);
  let identity = used.v === pattern.colIdx.length;
  for (let e = 0; identity && e < used.v; e++) identity = place[e] === e;
  return { counts: s.counts.slice(), rows: s.rows.slice(0, used.r), cols: s.cols.slice(0, used.c), m, n, pattern, cooRows, place, once, identity };
}

const loopText = (l: BlockLoop) => `the loop${l.loc ? ` at line ${l.loc.line}` : ''}`;

/**
 * The first column of each independent's floats, as `<head>_blocks` takes them: a nested array's row
 * by row, a flat array's once; and the total (the Jacobian's columns).
 */
export function columnStarts(inputs: readonly unknown[]): { colAt: Int32Array[]; n: number } {
  let n = 0;
  const colAt = inputs.map((x) => {
    const a = x as ArrayLike<unknown>;
    if (a.length > 0 && typeof a[0] === 'object') {
      const starts = new Int32Array(a.length);
      for (let r = 0; r < a.length; r++) {
        starts[r] = n;
        n += (a[r] as ArrayLike<number>).length;
      }
      return starts;
    }
    const start = Int32Array.of(n);
    n += a.length;
    return start;
  });
  return { colAt, n };
}

/** each output's first row, and the total (the Jacobian's rows) */
export function rowStarts(lengths: readonly number[]): { rowAt: Int32Array; m: number } {
  const rowAt = new Int32Array(lengths.length);
  let m = 0;
  lengths.forEach((len, k) => {
    rowAt[k] = m;
    m += len;
  });
  return { rowAt, m };
}

/**
 * The sparse Jacobian by blocks of `head` (compile-level entry): a function of the head's arguments
 * (arrays by their own layout: nested rows one after another), its rows the floats of the `of`
 * arguments (or ['return'], of the array it makes and returns), its columns the floats of the `wrt`
 * arrays. The first call whose values are all finite also compares the result times a random
 * direction with the tangent along it (compiled beside it) and throws if they differ (a bug in tsad).
 * With `reuseValues`, each call's values overwrite the previous call's. Refused (with the reason) where
 * the head is not made of loops over independent items.
 */
export function blockJacobian(input: SourceInput, options: { head: string; wrt: readonly string[]; of: readonly string[]; reuseValues?: boolean; check?: boolean }): { jacobian: (...args: unknown[]) => SparseMatrix } | { refused: string } {
  const r = compileBlocks(input, { ...options, js: true });
  if ('refused' in r) return r;
  const t = compile(input, { head: options.head, wrt: [...options.wrt], of: [...options.of], modes: ['tangent'], js: true, runtimeImport: null });
  if (t.diagnostics.some((d) => d.severity === 'error')) return { refused: t.diagnostics.map(formatDiagnostic).join('\n') };
  const run = loadGenerated(r.code)[r.name] as (...x: unknown[]) => number;
  const tangentMod = loadGenerated(t.code, t.runtimeNames);
  const params = frontEnd(input).funcs.get(options.head)!.params.map((p) => p.name);
  const state = blockState(r.loops);
  let unchecked = options.check !== false;
  const jacobian = (...args: unknown[]): SparseMatrix => {
    const { colAt, n } = columnStarts(options.wrt.map((w) => args[params.indexOf(w)]));
    const returned = options.of.includes('return');
    const outputs = returned ? [(tangentMod[options.head] as (...x: unknown[]) => unknown)(...clone(args))] : options.of.map((o) => args[params.indexOf(o)]);
    const { rowAt, m } = rowStarts(outputs.map(floatCount));
    const primals = params.map((_, i) => args[i]);
    let M: SparseMatrix;
    try {
      M = sparseByBlocks((...b) => run(...primals, ...b), m, n, colAt, rowAt, state, options.reuseValues === true);
    } catch (e) {
      // (blocks or nothing, as at compile time: a call whose iterations are not independent says so)
      if (e instanceof NotBlocks) throw new Error(`tsad: blockJacobian of '${options.head}': not blocks at these arguments: ${e.message}. sparseJacobian, or tsad --jacobian --sparse, colours such a call`);
      throw e;
    }
    // (first call, and whenever the rows or columns read changed: a new plan is checked again)
    if (unchecked || (options.check !== false && M.info.pattern !== 'cached')) unchecked = !checkedAgainstTangent(generatedOf(t.manifest, t.wrt, tangentMod, params, args, { primal: options.head, tangent: `${options.head}_d`, vector: `${options.head}_dv` }, t.of), args, M, state.plan!.pattern, options.head);
    return M;
  };
  return { jacobian };
}

/** M times a random direction against the tangent along it: true when compared (and equal), false at a non-finite point; throws where they differ */
export function checkedAgainstTangent(g: Generated, args: unknown[], M: SparseMatrix, pattern: SparsityPattern, head: string): boolean {
  const R = rng(0x7ad5e5f);
  const dirs = g.wrt.map((i) => randomLike(args[i], R));
  const dense = outputTangent(g, args, dirs);
  const v = dirs.flatMap((d) => flatten(d));
  if (![...dense, ...M.values].every(Number.isFinite)) return false;
  const bad = mismatch(pattern, M.values, v, dense);
  if (bad) throw new Error(`tsad: self-check failed for the sparse Jacobian of '${head}' (by blocks): times a random direction it differs from the tangent in that direction (row ${bad.row}: ${bad.got} vs ${bad.want}). This is a bug in tsad: please report it with the function; { check: false } skips this check`);
  return true;
}

/**
 * The sparse Jacobian of a compiled head at one point, its rows and columns in the sweeps' order (the
 * floats of the outputs `of`, then of the independents, flattened): by blocks where compileBlocks
 * accepts the head and its iterations write distinct rows at this point, else by colouring (sparseAt),
 * saying why not by blocks. `tsad --jacobian --sparse` and the fuzz property `blocks` run it.
 */
export function sparseJacobianAt(input: SourceInput, g: Generated, params: readonly string[], of: readonly string[], args: unknown[]): { matrix: SparseMatrix; notBlocks?: string } {
  const colour = (why: string) => ({ matrix: sparseAt('jacobian', packedSweep(g, args), outputCount(g, args), independentCount(g, args), undefined).matrix, notBlocks: why });
  const r = compileBlocks(input, { head: g.primal, wrt: g.wrt.map((i) => params[i]), of, js: true });
  if ('refused' in r) return colour(r.refused);
  const run = loadGenerated(r.code)[r.name] as (...x: unknown[]) => number;
  const after = clone(args);
  const y = (g.mod[g.primal] as (...x: unknown[]) => unknown)(...after);
  const outputs = of.map((o) => (o === 'return' ? y : after[params.indexOf(o)]));
  const { colAt, n } = columnStarts(g.wrt.map((i) => args[i]));
  const { rowAt, m } = rowStarts(outputs.map(floatCount));
  try {
    const primals = params.map((_, i) => args[i]);
    const state = blockState(r.loops);
    const matrix = sparseByBlocks((...b) => run(...primals, ...b), m, n, colAt, rowAt, state);
    // (one call, printed: checked like the runtime API's first call)
    checkedAgainstTangent(g, args, matrix, state.plan!.pattern, g.primal);
    return { matrix };
  } catch (e) {
    if (e instanceof NotBlocks) return colour(e.message);
    throw e;
  }
}
