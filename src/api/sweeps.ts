// Running generated derivatives on values, and the matrices built from them: argument lists read from
// the manifest, one tangent, vector-tangent or adjoint sweep, and Jacobians and Hessians assembled from
// sweeps. The runtime API (runtime.ts) and the CLI (`--jacobian`, `--hessian`) share these.
import type { ManifestEntry, ManifestParam } from './compile.js';
import type { LoadedModule } from './load.js';
import { clone, flatten, floatCount, mapFloats, packDirections, unpackDirection } from './values.js';
import { zeros, zerosLike } from '../runtime/arrays.js';

/** a generated function and its parameters, as the manifest lists them */
export interface Entry {
  name: string;
  params: readonly ManifestParam[];
}

/** The derivatives generated for one head, loaded, and which arguments are the independents. */
export interface Generated {
  mod: LoadedModule;
  /** the function whose value the sweeps return (the head, or `<head>_grad` for second derivatives) */
  primal: string;
  /** argument positions of the independents, in `wrt` order */
  wrt: number[];
  /** those of them that are numbers, in parameter order (their adjoints are returned, not accumulated) */
  scalarWrt: number[];
  tangent: Entry | null;
  vector: Entry | null;
  adjoint: Entry | null;
  /**
   * What a Jacobian's rows are of (the CLI's `--of`): the result, unless left out, then the final
   * contents of these argument positions. Absent: the result alone.
   */
  outputs?: { result: boolean; params: number[] };
}

/**
 * The Generated of a compile result (the CLI's): `primal` and the derivatives named, those the module
 * holds; independents by the result's `wrt` names among the head's parameters.
 */
export function generatedOf(manifest: readonly ManifestEntry[], wrtNames: readonly string[], mod: LoadedModule, params: readonly string[], args: unknown[], names: { primal: string; tangent: string; vector: string; adjoint?: string }, of?: readonly string[]): Generated {
  const entry = (name: string | undefined): Entry | null => (name && mod[name] ? { name, params: manifest.find((m) => m.name === name)?.params ?? [] } : null);
  const all = wrtNames.map((w) => params.indexOf(w)).filter((i) => i >= 0);
  // (an independent whose argument is left out takes its default: no row or column is its, but the
  // adjoint still returns its number among the others)
  const wrt = all.filter((i) => args[i] !== undefined);
  const outputs = of ? { result: of.includes('return'), params: of.map((o) => params.indexOf(o)).filter((i) => i >= 0) } : undefined;
  const adjoint = entry(names.adjoint);
  return { mod, primal: names.primal, wrt, scalarWrt: scalarIndependents(all, args, params, adjoint), tangent: entry(names.tangent), vector: entry(names.vector), adjoint, outputs };
}

/**
 * The independents whose adjoints f_b returns (in parameter order): the numbers, and those left out
 * (`undefined`) that f_b gives no shadow array to fill, as it does for a number.
 */
export function scalarIndependents(wrt: readonly number[], args: unknown[], params: readonly string[], adjoint: Entry | null): number[] {
  const shadowed = (i: number) => !!adjoint?.params.some((p) => p.role === 'adjoint' && p.of === params[i]);
  return wrt.filter((i) => typeof args[i] === 'number' || (args[i] === undefined && !shadowed(i))).sort((x, y) => x - y);
}

/** the number of outputs: the rows of the Jacobian (the result's floats, then the output arguments') */
export function outputCount(g: Generated, args: unknown[]): number {
  return primalOutputs(g, args).count;
}

/**
 * one primal run on copies of `args`: its result, the number of outputs (the result's floats, then the
 * output arguments'), and the output arguments whose number of floats the call changes (`r.push(…)` into
 * an `r` given empty)
 */
function primalOutputs(g: Generated, args: unknown[]): { y: unknown; count: number; resized: number[] } {
  const a = clone(args);
  const y = (g.mod[g.primal] as (...x: unknown[]) => unknown)(...a);
  const out = g.outputs;
  if (!out) return { y, count: flatten(y).length, resized: [] };
  const resized = out.params.filter((k) => flatten(a[k]).length !== flatten(args[k]).length);
  return { y, count: (out.result ? flatten(y).length : 0) + out.params.reduce((s, k) => s + flatten(a[k]).length, 0), resized };
}

/**
 * The zero shadow of an argument, for the derivative parameter `p` (nbdirs directions in vector mode). A
 * defaulted argument left out (undefined) still takes a zero derivative: a number's is 0, or nbdirs zeros.
 */
export function zeroShadow(arg: unknown, p: ManifestParam, nbdirs?: number): unknown {
  if (arg !== undefined) return nbdirs === undefined ? zerosLike(arg) : zerosLike(arg, nbdirs);
  if (p.type === 'number') return 0;
  if (p.type.startsWith('Float64Array')) return new Float64Array(nbdirs ?? 0);
  return undefined;
}

/** the most directions one vector-mode sweep carries (every active intermediate holds them all) */
export const MAX_DIRECTIONS = 32;

/**
 * The argument list of a generated derivative, built from its manifest entry: the k-th primal parameter
 * takes argument k (undefined where the caller omitted a defaulted one), each tangent or adjoint
 * parameter what `shadow` gives for the argument it belongs to, the seed `seed`. The derivative has a
 * shadow parameter for every argument it reads or writes actively, not only for the independents: a
 * gl-matrix `scale(out, a, s)` differentiated with respect to `a` and `s` still takes `out`'s shadow.
 */
export function derivativeArgs(params: readonly ManifestParam[], args: unknown[], shadow: (argument: number, p: ManifestParam) => unknown, seed?: unknown, nbdirs?: number): unknown[] {
  const primals = params.filter((p) => p.role === 'primal').map((p) => p.name);
  return params.map((p) => {
    if (p.role === 'primal') return args[primals.indexOf(p.name)];
    if (p.role === 'seed') return seed;
    if (p.role === 'directions') return nbdirs;
    const k = primals.indexOf(p.of ?? '');
    if (k < 0) throw new Error(`tsad: internal error: the derivative's parameter '${p.name}' belongs to no argument`);
    return shadow(k, p);
  });
}

/** Runs the adjoint with seed `seed` on copies of the arguments; returns [value, gradients per independent]. */
export function runAdjoint(g: Generated, args: unknown[], seed: unknown, outputSeeds: ReadonlyMap<number, unknown> = new Map()): [unknown, unknown[]] {
  const e = g.adjoint!;
  const value = (g.mod[g.primal] as (...x: unknown[]) => unknown)(...clone(args));
  const a = clone(args);
  // every array or object shadow starts at zero, an output argument's at its seed; those of the
  // independents are the gradients
  const adj = new Map<number, unknown>();
  const call = derivativeArgs(e.params, a, (k, p) => {
    const z = outputSeeds.has(k) ? clone(outputSeeds.get(k)) : zeroShadow(a[k], p);
    adj.set(k, z);
    return z;
  }, seed);
  const res = g.mod[e.name](...call);
  // scalar adjoints are returned, in parameter order (a tuple if several)
  const scalarOnes = g.scalarWrt.length;
  g.scalarWrt.forEach((i, k) => adj.set(i, scalarOnes === 1 ? res : (res as number[])[k]));
  return [value, g.wrt.map((i) => adj.get(i) ?? zerosLike(args[i]))];
}

/** Runs the tangent with one direction per independent on copies of the arguments; returns [value, its tangent]. */
export function runTangent(g: Generated, args: unknown[], dirs: unknown[]): [unknown, unknown] {
  const [value, tangent] = tangentRun(g, args, dirs);
  return [value, tangent];
}

/** runTangent, also giving the tangent shadows of the arguments after the sweep (by argument position) */
function tangentRun(g: Generated, args: unknown[], dirs: unknown[]): [unknown, unknown, Map<number, unknown>] {
  const e = g.tangent!;
  const a = clone(args);
  const shadows = new Map<number, unknown>();
  // the independents move along their directions; other active arguments (an `out` written before it is read) do not
  const call = derivativeArgs(e.params, a, (k, p) => {
    const w = g.wrt.indexOf(k);
    const d = w >= 0 ? clone(dirs[w]) : zeroShadow(a[k], p);
    shadows.set(k, d);
    return d;
  });
  const r = g.mod[e.name](...call) as [unknown, unknown] | undefined;
  // a function without a result (one that only writes into its arguments) has no result tangent either
  return r ? [r[0], r[1], shadows] : [undefined, undefined, shadows];
}

/** the tangents of the outputs (see Generated.outputs) along one direction per independent, flattened */
export function outputTangent(g: Generated, args: unknown[], dirs: unknown[]): number[] {
  const [, t, shadows] = tangentRun(g, args, dirs);
  const out = g.outputs;
  if (!out) return flatten(t);
  return [...(out.result ? flatten(t) : []), ...out.params.flatMap((k) => flatten(shadows.get(k) ?? zerosLike(args[k])))];
}

/** Runs the vector tangent with several directions (each one list, an entry per independent); returns [value, each direction's tangent, flattened]. */
export function runVector(g: Generated, args: unknown[], dirs: unknown[][]): [unknown, number[][]] {
  const e = g.vector!;
  const nb = dirs.length;
  const a = clone(args);
  const call = derivativeArgs(e.params, a, (k, p) => {
    const w = g.wrt.indexOf(k);
    return w >= 0 ? packDirections(dirs.map((d) => d[w]), nb) : zeroShadow(a[k], p, nb);
  }, undefined, nb);
  const r = g.mod[e.name](...call) as [unknown, unknown] | undefined;
  if (!r) return [undefined, dirs.map(() => [])];
  return [r[0], dirs.map((_, k) => flatten(unpackDirection(r[1], r[0], k, nb)))];
}

/** one direction per independent, shaped like it: 1 at float `j` of them all in flattened order, 0 elsewhere */
export function unitDirection(inputs: unknown[], j: number): unknown[] {
  let offset = 0;
  return inputs.map((v) => {
    const t = mapFloats(v, (_, k) => (k + offset === j ? 1 : 0));
    offset += flatten(v).length;
    return t;
  });
}

/**
 * The derivative's columns along the unit directions `js` (float indices of the independents): one
 * vector sweep for them all where it was generated, else one tangent sweep per direction.
 */
export function tangentColumns(g: Generated, args: unknown[], js: number[]): number[][] {
  const inputs = g.wrt.map((i) => args[i]);
  const dirs = js.map((j) => unitDirection(inputs, j));
  // (output arguments are read from one tangent sweep per direction)
  if (!g.vector || g.outputs?.params.length) return dirs.map((d) => outputTangent(g, args, d));
  return runVector(g, args, dirs)[1];
}

/** a matrix with m rows built from its n columns, computed a block of at most MAX_DIRECTIONS columns at a time */
export function fromColumns(columns: (js: number[]) => number[][], m: number, n: number): number[][] {
  const M = Array.from({ length: m }, () => new Array<number>(n).fill(0));
  for (let j0 = 0; j0 < n; j0 += MAX_DIRECTIONS) {
    const js = Array.from({ length: Math.min(MAX_DIRECTIONS, n - j0) }, (_, k) => j0 + k);
    columns(js).forEach((col, k) => {
      for (let i = 0; i < m; i++) M[i][js[k]] = col[i];
    });
  }
  return M;
}

/** the Hessian at `args` from its columns (the gradient's tangents), rows and columns in the independents' own key order */
export function hessianAt(g: Generated, args: unknown[], columns: (js: number[]) => number[][]): number[][] {
  const n = independentCount(g, args);
  const own = ownOrder(g.wrt.map((i) => args[i]));
  return inOwnOrder(fromColumns(columns, n, n), own, own);
}

/** the number of floats of the independents */
export function independentCount(g: Generated, args: unknown[]): number {
  return g.wrt.reduce((s, i) => s + floatCount(args[i]), 0);
}

/**
 * The Jacobian at `args`, as rows: J[i][j] = ∂ output_i / ∂ input_j over the floats of the result and of
 * the independents in flattened order (arrays by index, object fields in the order of the caller's own keys). Reverse: one
 * adjoint sweep per output; forward: the tangent columns (tangentColumns); auto: whichever runs fewer
 * sweeps among those generated.
 */
export function jacobianAt(g: Generated, args: unknown[], how: 'auto' | 'forward' | 'reverse', columns: (js: number[]) => number[][] = (js) => tangentColumns(g, args, js)): number[][] {
  const { y, count: m, resized } = primalOutputs(g, args);
  if (m === 0 && !g.outputs) throw new Error(`tsad: '${g.primal}' returns no number: its Jacobian would have no rows. Return what it computes (the array it writes into, say)`);
  const n = independentCount(g, args);
  // (an output argument the call grows or shrinks has no adjoint to seed before the call: its rows are
  // only the tangents')
  if (resized.length && (how === 'reverse' || !g.tangent))
    throw new TypeError(`tsad: jacrev: the output argument ${resized.map((k) => `${k + 1}`).join(', ')} changes its length in the call (it is grown or cut, \`r.push(…)\` into an \`r\` given empty): the adjoint sweeps seed it before the call, at its old length; use jacobian or jacfwd (tangents), or pass it at its final length`);
  const reverse = !resized.length && (how === 'reverse' || (how === 'auto' && !!g.adjoint && (m <= n || !g.tangent)));
  const J = reverse ? reverseRows(g, args, y, m) : fromColumns(columns, m, n);
  const outputs = [...(!g.outputs || g.outputs.result ? [y] : []), ...(g.outputs?.params ?? []).map((k) => args[k])];
  return inOwnOrder(J, ownOrder(outputs), ownOrder(g.wrt.map((i) => args[i])));
}

/**
 * Where each float of `values`, taken in their own key order (the order the caller wrote the fields),
 * sits in the flattened order the sweeps use (fields by sorted name, the same for every object of a
 * type whatever order its fields were made in).
 */
export function ownOrder(values: readonly unknown[]): number[] {
  const out: number[] = [];
  let offset = 0;
  for (const v of values) {
    // each float labelled with its place in the sorted order, the labels read in the own order
    flatten(mapFloats(v, (_, k) => offset + k), out, true);
    offset += flatten(v).length;
  }
  return out;
}

/** `M` with its rows and columns in the values' own key order (ownOrder) */
export function inOwnOrder(M: number[][], rows: readonly number[], cols: readonly number[]): number[][] {
  const same = (p: readonly number[]) => p.every((k, i) => k === i);
  if (same(rows) && same(cols)) return M;
  return rows.map((r) => cols.map((c) => M[r][c]));
}

/** the Jacobian's rows, one adjoint sweep each */
function reverseRows(g: Generated, args: unknown[], y: unknown, m: number): number[][] {
  const resultRows = !g.outputs || g.outputs.result ? flatten(y).length : 0;
  const J: number[][] = [];
  for (let i = 0; i < m; i++) {
    // row i seeds one float of the result, or of an output argument (the others at zero)
    const unit = (v: unknown, offset: number) => mapFloats(v, (_, k) => (k + offset === i ? 1 : 0));
    // (a result that is not a row of the Jacobian is seeded with zeros)
    const seed = typeof y === 'number' ? (resultRows && i === 0 ? 1 : 0) : y === undefined ? undefined : resultRows ? unit(y, 0) : mapFloats(y, () => 0);
    const outputSeeds = new Map<number, unknown>();
    let offset = resultRows;
    for (const k of g.outputs?.params ?? []) {
      outputSeeds.set(k, unit(args[k], offset));
      offset += flatten(args[k]).length;
    }
    // (an independent left out, `undefined`, has no column, as in the tangents': f_b still returns its number)
    J.push(runAdjoint(g, args, seed, outputSeeds)[1].flatMap((gi, k) => (args[g.wrt[k]] === undefined ? [] : flatten(gi))));
  }
  return J;
}

/**
 * Per derivative, the faster way found for each number of directions: one vector sweep, or one tangent
 * sweep per direction. (The vector mode allocates an array of nbdirs floats per call of a helper taking a
 * number, and per number it returns: in a loop calling helpers, one sweep of a few directions can cost
 * more than that many scalar sweeps. Which one wins depends on the function and the width, so both are
 * timed at each width's first use; the vector sweep is kept unless the scalar ones are clearly faster,
 * so that timing noise on a busy machine does not pick the scalar sweeps where both cost about the same.)
 */
const fasterWay = new WeakMap<Generated, Map<number, 'vector' | 'scalar'>>();

/** the scalar sweeps are kept only below this fraction of the vector sweep's time (fasterWay) */
const SCALAR_MARGIN = 0.75;

/** a flat array of numbers (or a Float64Array): its directions are strided slices of the packed seeds */
function isFlat(v: unknown): v is number[] | Float64Array {
  if (v instanceof Float64Array) return true;
  if (!Array.isArray(v)) return false;
  // (a plain loop: `every` with a callback costs a call per element, on every sparse evaluation)
  for (let i = 0; i < v.length; i++) if (typeof v[i] !== 'number') return false;
  return true;
}

/** seeds[from … to) as a Float64Array */
function floatsOf(seeds: ArrayLike<number>, from: number, to: number): Float64Array {
  const d = new Float64Array(to - from);
  for (let i = from; i < to; i++) d[i - from] = seeds[i];
  return d;
}

/** seeds[from … to) as a plain array of numbers (packed doubles: see zeros) */
function numbersOf(seeds: ArrayLike<number>, from: number, to: number): number[] {
  if (Array.isArray(seeds)) return seeds.slice(from, to);
  const d = zeros(to - from);
  for (let i = from; i < to; i++) d[i - from] = seeds[i];
  return d;
}

/**
 * The derivative as a packed sweep (sparse.ts): `nb` directions over the floats of the independents,
 * packed float j of direction k at j·nb + k, to the outputs' tangents packed the same way. By one vector
 * sweep, or one tangent sweep per direction, whichever was faster at this width (fasterWay); always the
 * latter where the outputs include arguments written (the CLI's --of) or no vector mode was generated.
 * `way` forces one (tests).
 */
export function packedSweep(g: Generated, args: unknown[], way?: 'vector' | 'scalar'): (seeds: ArrayLike<number>, nb: number) => ArrayLike<number> {
  const inputs = g.wrt.map((i) => args[i]);
  const flat = inputs.map(isFlat);
  const sizes = inputs.map(floatCount);
  const starts = sizes.map((_, w) => sizes.slice(0, w).reduce((a, b) => a + b, 0));
  /** direction k of independent w, shaped like it */
  const directionOf = (seeds: ArrayLike<number>, nb: number, k: number, w: number): unknown => {
    const v = inputs[w], from = starts[w];
    if (typeof v === 'number') return seeds[from * nb + k];
    if (v instanceof Float64Array) {
      const d = new Float64Array(v.length);
      for (let i = 0; i < v.length; i++) d[i] = seeds[(from + i) * nb + k];
      return d;
    }
    if (flat[w]) {
      // (pushed, not `new Array(n)` filled: a holey array slows every access of the derivative code to it)
      const d: number[] = [];
      for (let i = 0; i < (v as number[]).length; i++) d.push(seeds[(from + i) * nb + k]);
      return d;
    }
    return mapFloats(v, (_, i) => seeds[(from + i) * nb + k]);
  };
  let flatResult: boolean | undefined, flatVectorResult: boolean | undefined;
  const scalar = (seeds: ArrayLike<number>, nb: number): Float64Array => {
    let out = new Float64Array(0);
    for (let k = 0; k < nb; k++) {
      const dirs = inputs.map((_, w) => directionOf(seeds, nb, k, w));
      let col: ArrayLike<number>;
      if (g.outputs?.params.length) col = outputTangent(g, args, dirs);
      else {
        // (runTangent without its copies of the directions, made here, and flatten's walk of a flat result)
        const e = g.tangent!;
        const a = clone(args);
        const call = derivativeArgs(e.params, a, (j, p) => {
          const w = g.wrt.indexOf(j);
          return w >= 0 ? dirs[w] : zeroShadow(a[j], p);
        });
        const t = (g.mod[e.name](...call) as [unknown, unknown] | undefined)?.[1];
        // (the result's shape is the same in every direction: tested once)
        flatResult ??= typeof t !== 'number' && isFlat(t);
        col = typeof t === 'number' ? [t] : flatResult ? (t as number[]) : flatten(t);
      }
      if (k === 0) out = new Float64Array(col.length * nb);
      for (let i = 0; i < col.length; i++) out[i * nb + k] = col[i];
    }
    return out;
  };
  const vector = (seeds: ArrayLike<number>, nb: number): ArrayLike<number> => {
    const e = g.vector!;
    const a = clone(args);
    const packed = inputs.map((v, w) => {
      const from = starts[w] * nb, to = from + sizes[w] * nb;
      if (typeof v === 'number' || v instanceof Float64Array) return floatsOf(seeds, from, to);
      // (the seeds themselves where they are this one independent's: PackedSweep lets the derivative write into them)
      if (flat[w]) return from === 0 && to === seeds.length && Array.isArray(seeds) ? seeds : numbersOf(seeds, from, to);
      return packDirections(Array.from({ length: nb }, (_, k) => directionOf(seeds, nb, k, w)), nb);
    });
    const call = derivativeArgs(e.params, a, (k, p) => {
      const w = g.wrt.indexOf(k);
      return w >= 0 ? packed[w] : zeroShadow(a[k], p, nb);
    }, undefined, nb);
    const r = g.mod[e.name](...call) as [unknown, unknown] | undefined;
    if (!r) return new Float64Array(0);
    const [y, t] = r;
    // (a flat result's tangent is already packed: handed over as it is, never read by the derivative
    // again; the result's shape is the same in every sweep: tested once)
    flatVectorResult ??= typeof y === 'number' || isFlat(y);
    if (flatVectorResult) return t as ArrayLike<number>;
    const columns = Array.from({ length: nb }, (_, k) => flatten(unpackDirection(t, y, k, nb)));
    const out = new Float64Array((columns[0]?.length ?? 0) * nb);
    columns.forEach((col, k) => col.forEach((x, i) => (out[i * nb + k] = x)));
    return out;
  };
  return (seeds: ArrayLike<number>, nb: number): ArrayLike<number> => {
    if (!g.vector || g.outputs?.params.length || nb === 1 || way === 'scalar') return scalar(seeds, nb);
    if (way === 'vector') return vector(seeds, nb);
    let ways = fasterWay.get(g);
    if (!ways) fasterWay.set(g, (ways = new Map()));
    const known = ways.get(nb);
    if (known) return known === 'vector' ? vector(seeds, nb) : scalar(seeds, nb);
    // (each way twice, alternating, the faster of each kept: one timing is at the mercy of a busy machine;
    // each run on its own copy of the seeds, which a derivative writing into its tangent argument changes)
    let out: ArrayLike<number> = new Float64Array(0);
    const best = { vector: Infinity, scalar: Infinity };
    for (let round = 0; round < 2; round++)
      for (const way of ['vector', 'scalar'] as const) {
        const mine = Array.isArray(seeds) ? seeds.slice() : Float64Array.from(seeds);
        const t0 = performance.now();
        out = way === 'vector' ? vector(mine, nb) : scalar(mine, nb);
        best[way] = Math.min(best[way], performance.now() - t0);
      }
    ways.set(nb, best.scalar < SCALAR_MARGIN * best.vector ? 'scalar' : 'vector');
    return out;
  };
}
