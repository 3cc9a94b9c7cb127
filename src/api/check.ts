// Built-in validation (Tapenade's validation mode): tangent against central divided differences,
// adjoint against tangent by the dot-product test, vector tangent against scalar tangents, and an
// empty tape after every adjoint run. Accuracies are reported as −log10 of the relative error.
import type { CompileResult, ManifestEntry } from './compile.js';
import { loadGenerated, type LoadedModule } from './load.js';
import { Tape } from '../runtime/tape.js';
import { addInto, zerosLike } from '../runtime/arrays.js';
import { assertNoAliasing, axpy, clone, dot, flatten, mapFloats, packDirections, randomLike, rng, unpackDirection } from './values.js';
import { zeroShadow } from './sweeps.js';


/**
 * Why a derivative can be exactly zero while divided differences are not: the result depends on the
 * independents only through tests. Shown by --check and the runtime self-check.
 */
export const PIECEWISE_CONSTANT =
  "tsad's derivative is exactly zero where the function changes: it depends on the independents only through tests (comparisons), as a bisection, a search by halving or rounding does. " +
  'Differentiated as written such a function is piecewise constant, and zero is its derivative. ' +
  "For a root or fixed point found by iteration, declare the derivative the implicit function theorem gives (a custom derivative: README, 'Custom derivatives'), or iterate with steps that carry it (Newton's)";

export interface CheckOptions {
  seed?: number;
  /** divided-difference step (scaled by max(1, |x|) per entry is not done: directions are O(1)) */
  h?: number;
  /** number of directions for the vector-mode check */
  directions?: number;
  /**
   * vector-mode directions that each seed a few of the independents' floats (float i of the flattened
   * independents in direction ⌊i / block⌋ mod nb, block 1 or 2 by the seed), and some directions none:
   * the sparse vector mode's case (src/transform/sparse-vector.ts), where rows carry narrow intervals
   */
  sparseDirections?: boolean;
}

export interface CheckReport {
  ok: boolean;
  /** max over outputs of |tangent − divided difference| / max(1, |tangent| + |dd|) */
  tangentError: number;
  /** true when steps h and h/2 disagree: the point is near a kink or a branch switch */
  unstable: boolean;
  /**
   * whether divided differences judged any derivative: false where there is no tangent mode and the
   * differences are unstable (the adjoint was then compared with nothing)
   */
  judged: boolean;
  dotLeft: number;
  dotRight: number;
  dotError: number;
  vectorError: number;
  tapeEmpty: boolean;
  /**
   * The tape of the checked adjoint run, read between the sweeps (Tapenade's "peak" and "traffic"):
   * entries pushed per stack, the peak bytes, and the traffic (every entry is pushed once and popped once).
   */
  tape?: { pushes: { floats: number; ints: number; refs: number }; peakBytes: number; trafficBytes: number };
  /** −log10 of the errors (Tapenade's accuracy figures) */
  accuracy: { tangent: number; dot: number };
  messages: string[];
  /**
   * What was NaN or ±Infinity: the divided differences (the function is not finite within a step of
   * the point: an index read past an array's end, a domain's edge) and the tangent; an error of
   * Infinity alone does not say which.
   */
  notFinite: { differences: boolean; tangent: boolean };
  /**
   * How many whole numbers among the independents were given no direction because the function throws
   * when they move by a step (indices, counts): 0 when every independent was moved.
   */
  heldStill: number;
}

/** The function throws at the point moved by a step along the direction, with its whole numbers held still. */
export class MovedPointError extends Error {
  constructor(head: string, cause: string, heldStill: number) {
    super(`'${head}' throws at the point moved by a divided-difference step along a random direction (${cause})${heldStill ? `, with the ${heldStill} whole numbers among the independents held still` : ''}: a number used as an index or a count among the independents?`);
    this.name = 'MovedPointError';
  }
}

/** what the function throws one step either side of the point, or null */
function throwsNear(run: (a: unknown[]) => unknown, plus: (s: number) => unknown[], h: number): string | null {
  for (const s of [h, -h]) {
    try {
      run(plus(s));
    } catch (e) {
      return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    }
  }
  return null;
}

interface HeadInfo {
  params: string[];
  tangent?: ManifestEntry;
  vector?: ManifestEntry;
  fwd?: ManifestEntry;
  bwd?: ManifestEntry;
}

function headInfo(r: CompileResult, head: string): HeadInfo {
  const find = (mode: ManifestEntry['mode']) => r.manifest.find((m) => m.of === head && m.mode === mode);
  const t = find('tangent');
  const params = (t ?? find('forward'))!.params.filter((p) => p.role === 'primal').map((p) => p.name);
  return { params, tangent: t, vector: find('vector'), fwd: find('forward'), bwd: find('backward') };
}

/** Outputs of one primal evaluation: the result (if differentiated) and the `of` parameters. */
function outputsOf(result: unknown, args: unknown[], params: string[], of: string[]): unknown[] {
  const outs: unknown[] = [];
  if (of.includes('return')) outs.push(result);
  for (const o of of) if (o !== 'return') outs.push(args[params.indexOf(o)]);
  return outs;
}

export function checkCompiled(r: CompileResult, jsCode: string | LoadedModule, head: string, args: unknown[], opts: CheckOptions = {}): CheckReport {
  const mod = typeof jsCode === 'string' ? loadGenerated(jsCode, r.runtimeNames) : jsCode;
  const info = headInfo(r, head);
  const R = rng(opts.seed ?? 1);
  // values stored in a Float32Array (or rounded by Math.fround) keep 7 digits: divided differences need a larger step, and
  // agree with the derivative to fewer digits (it is the derivative of the unrounded arithmetic)
  const f32 = /\bFloat32Array\b|\bMath\.fround\(/.test(r.code);
  const h = opts.h ?? (f32 ? 3e-3 : 1e-6);
  const tangentTolerance = f32 ? 1e-3 : 1e-6, stableTolerance = f32 ? 1e-3 : 1e-5;
  const wrt = r.wrt, of = r.of;
  const messages: string[] = [];
  const f = mod[head];
  const run = (a: unknown[]) => {
    const c = clone(a);
    const y = f(...c);
    return outputsOf(y, c, info.params, of);
  };
  assertNoAliasing(args, info.params);
  // (an independent whose argument is left out takes its default: it has no direction)
  const direction = (j: number) => (wrt.includes(info.params[j]) && args[j] !== undefined ? randomLike(args[j], R) : null);
  let dirs: unknown[] = info.params.map((_, j) => direction(j));
  const plus = (s: number) => info.params.map((_, j) => (dirs[j] !== null ? axpy(args[j], s, dirs[j]) : args[j]));
  // A whole number the function uses as an index or a count among the independents (a field `a` of
  // `{ a, b, k }` naming an object of an array, a layer size) makes it throw once moved by a step: the
  // differences cannot be taken there. Such numbers are held still (no direction) in every check,
  // and the report counts them; a function that throws with them held throws here, saying where.
  // (Only a throw: a value that is not finite a step away may be a domain's edge, `Math.sqrt(x)` at
  // x = 0, which the differences report as such; and never every number: that would check nothing.)
  const holdWhole = (d: unknown, j: number) => {
    const whole = flatten(args[j]).map(Number.isInteger);
    return mapFloats(d, (x, i) => (whole[i] ? 0 : x));
  };
  let heldStill = 0;
  // (throwing at the point itself is the point's problem, reported as such by the caller)
  run(args);
  const thrown = throwsNear(run, plus, h);
  if (thrown) {
    let moving = 0;
    for (let j = 0; j < dirs.length; j++) {
      if (dirs[j] === null) continue;
      const leaves = flatten(args[j]);
      heldStill += leaves.filter(Number.isInteger).length;
      moving += leaves.length - leaves.filter(Number.isInteger).length;
    }
    if (!moving) throw new MovedPointError(head, thrown, 0);
    dirs = dirs.map((d, j) => (d === null ? null : holdWhole(d, j)));
    const error = throwsNear(run, plus, h);
    if (error) throw new MovedPointError(head, error, heldStill);
  }

  // ---- tangent ----
  let T: unknown[] = [];
  if (info.tangent) {
    const call: unknown[] = [];
    const c = clone(args);
    for (const p of info.tangent.params) {
      const j = info.params.indexOf(p.of ?? p.name);
      if (p.role === 'primal') call.push(c[j]);
      else if (p.role === 'tangent') call.push(dirs[j] !== null ? clone(dirs[j]) : zeroShadow(args[j], p));
    }
    const res = mod[info.tangent.name](...call);
    // a null result (`number | null`) has no derivative: its tangent (0) is left out, as its value is
    const yd = of.includes('return') ? ((res as unknown[])[0] === null ? null : (res as unknown[])[1]) : undefined;
    T = [];
    if (of.includes('return')) T.push(yd);
    for (const o of of) {
      if (o === 'return') continue;
      const k = info.tangent.params.findIndex((p) => p.role === 'tangent' && p.of === o);
      // a passive output's tangent is zero, shaped as the call left it (a truncated array is shorter)
      T.push(k >= 0 ? call[k] : zerosLike(c[info.params.indexOf(o)]));
    }
  }
  const dd = (step: number) => {
    const yp = flatten(run(plus(step)));
    const ym = flatten(run(plus(-step)));
    return yp.map((v, i) => (v - ym[i]) / (2 * step));
  };
  const d1 = dd(h);
  const d2 = dd(h / 2);
  // without a tangent (a hand-written adjoint rule alone), the adjoint is tested against divided differences
  const tf = info.tangent ? flatten(T) : d1;
  let tangentError = 0;
  let unstable = false;
  for (let i = 0; i < d1.length; i++) {
    const e = Math.abs(tf[i] - d1[i]) / Math.max(1, Math.abs(tf[i]) + Math.abs(d1[i]));
    const stab = Math.abs(d1[i] - d2[i]) / Math.max(1, Math.abs(d1[i]) + Math.abs(d2[i]));
    if (stab > stableTolerance) unstable = true;
    if (!(e <= tangentError)) tangentError = Number.isNaN(e) ? Infinity : Math.max(tangentError, e);
  }
  if (info.tangent && tf.length !== d1.length) {
    messages.push(`tangent has ${tf.length} outputs, divided differences ${d1.length}`);
    tangentError = Infinity;
  }

  // ---- adjoint (forward sweep, then backward sweep, on one tape) ----
  let dotLeft = NaN, dotRight = NaN, dotError = Infinity, tapeEmpty = false;
  let tapeStats: CheckReport['tape'];
  if (info.fwd && info.bwd) {
    const y0 = run(args);
    const ybar = y0.map((y) => randomLike(y, R));
    const c = clone(args);
    const adjArrays = new Map<string, unknown>();
    // an output array's seed is added between the sweeps, as f_b does: a forward sweep that moves rows
    // (`A[i] = A[j]`) moves their adjoints with them, and the seed is laid out as the output is
    const outputSeeds: [unknown, unknown][] = [];
    const tape = Tape.acquire();
    const fargs: unknown[] = [];
    const bargs: unknown[] = [];
    for (const p of info.fwd.params) {
      if (p.role === 'tape') fargs.push(tape);
      else if (p.role === 'primal') fargs.push(c[info.params.indexOf(p.name)]);
      else if (p.role === 'adjoint') {
        const o = p.of!;
        const ofIdx = of.filter((x) => x !== 'return').indexOf(o);
        const a = zerosLike(args[info.params.indexOf(o)]);
        if (ofIdx >= 0) outputSeeds.push([a, ybar[of.includes('return') ? ofIdx + 1 : ofIdx]]);
        adjArrays.set(o, a);
        fargs.push(a);
      }
    }
    mod[info.fwd.name](...fargs);
    for (const [a, seed] of outputSeeds) addInto(a, seed as typeof a);
    // the forward sweep only pushes: its heights are the pushes, its bytes the peak
    const pushes = tape.heights;
    const peakBytes = tape.bytes;
    tapeStats = { pushes, peakBytes, trafficBytes: 2 * peakBytes };
    for (const p of info.bwd.params) {
      if (p.role === 'tape') bargs.push(tape);
      else if (p.role === 'primal') bargs.push(c[info.params.indexOf(p.name)]);
      else if (p.role === 'adjoint') bargs.push(adjArrays.get(p.of!));
      else if (p.role === 'seed') bargs.push(clone(ybar[0]) ?? 0); // the seed of a null result is ignored
    }
    const ret = mod[info.bwd.name](...bargs);
    tapeEmpty = tape.empty;
    Tape.release(tape);
    // scalar adjoints come back in parameter order
    // (an optional number left out, `undefined`, still has its adjoint slot: zero)
    // (an object left out, `opts = {}`, has its adjoint in a parameter of its own, not in the result)
    const scalarParams = info.params.filter((p, j) => (typeof args[j] === 'number' || args[j] === undefined || args[j] === null) && !info.bwd?.params.some((q) => q.role === 'adjoint' && q.of === p) && (info.tangent ? info.tangent.params.some((q) => q.role === 'tangent' && q.of === p) : wrt.includes(p)));
    const scalarAdj = new Map<string, number>();
    if (scalarParams.length === 1) scalarAdj.set(scalarParams[0], ret as number);
    else scalarParams.forEach((p, k) => scalarAdj.set(p, (ret as number[])[k]));
    let right = 0, mag = 0;
    info.params.forEach((p, j) => {
      if (dirs[j] === null) return;
      const xb = typeof args[j] === 'number' ? scalarAdj.get(p) ?? 0 : adjArrays.get(p) ?? zerosLike(args[j]);
      const d = dot(xb, dirs[j]);
      right += d;
      const fx = flatten(xb), fd = flatten(dirs[j]);
      for (let i = 0; i < fx.length; i++) mag += Math.abs(fx[i] * fd[i]);
    });
    const fy = flatten(ybar);
    const left = info.tangent ? dot(ybar, T) : fy.reduce((s, y, i) => s + y * tf[i], 0);
    for (let i = 0; i < fy.length; i++) mag += Math.abs(fy[i] * tf[i]);
    dotLeft = left;
    dotRight = right;
    // Relative to the terms' magnitudes, with a floor at the scale of a unit Jacobian (|ȳ|₁·|ẋ|₁): when
    // the derivative is many orders below that (cancellation inside, x − tanh(x) near 0), both sides
    // carry rounding errors of order 1e-16 of the intermediate values, not of the tiny result.
    let seedNorm = 0, dirNorm = 0;
    for (const y of fy) seedNorm += Math.abs(y);
    info.params.forEach((_, j) => {
      if (dirs[j] !== null) for (const v of flatten(dirs[j])) dirNorm += Math.abs(v);
    });
    const floor = 1e-4 * seedNorm * dirNorm;
    dotError = Math.abs(left - right) / Math.max(mag, floor, 1e-300);
    if (mag === 0 && floor === 0) dotError = Math.abs(left - right);
    if (!tapeEmpty) messages.push('the tape is not empty after the backward sweep');
  }

  // ---- vector tangent against scalar tangents ----
  let vectorError = 0;
  if (info.vector && info.tangent) {
    const nb = opts.directions ?? 3;
    const perDir = Array.from({ length: nb }, () => info.params.map((_, j) => {
      const d = direction(j);
      return d !== null && heldStill ? holdWhole(d, j) : d;
    }));
    if (opts.sparseDirections) {
      // (directions 0 .. nb - 2 take the floats in turn, direction nb - 1 none)
      const block = 1 + ((opts.seed ?? 1) % 2);
      let at = 0;
      for (let j = 0; j < info.params.length; j++) {
        if (perDir[0][j] === null) continue;
        const base = at;
        for (let k = 0; k < nb; k++) perDir[k][j] = mapFloats(perDir[k][j], (x, i) => (k < nb - 1 && Math.floor((base + i) / block) % (nb - 1) === k ? x : 0));
        at += flatten(perDir[0][j]).length;
      }
    }
    const c = clone(args);
    const call: unknown[] = [];
    for (const p of info.vector.params) {
      const j = info.params.indexOf(p.of ?? p.name);
      if (p.role === 'primal') call.push(c[j]);
      else if (p.role === 'tangent') call.push(perDir[0][j] !== null ? packDirections(perDir.map((d) => d[j]), nb) : zeroShadow(args[j], p, nb));
      else if (p.role === 'directions') call.push(nb);
    }
    const res = mod[info.vector.name](...call);
    for (let k = 0; k < nb; k++) {
      const c1 = clone(args);
      const call1: unknown[] = [];
      for (const p of info.tangent.params) {
        const j = info.params.indexOf(p.of ?? p.name);
        if (p.role === 'primal') call1.push(c1[j]);
        else if (p.role === 'tangent') call1.push(perDir[k][j] !== null ? clone(perDir[k][j]) : zeroShadow(args[j], p));
      }
      const r1 = mod[info.tangent.name](...call1);
      const want: unknown[] = [];
      const got: unknown[] = [];
      if (of.includes('return') && (r1 as unknown[])[0] !== null) {
        const y = (r1 as unknown[])[0];
        want.push((r1 as unknown[])[1]);
        got.push(unpackDirection((res as unknown[])[1], y, k, nb));
      }
      for (const o of of) {
        if (o === 'return') continue;
        const j = info.params.indexOf(o);
        const ks = info.tangent.params.findIndex((p) => p.role === 'tangent' && p.of === o);
        const kv = info.vector.params.findIndex((p) => p.role === 'tangent' && p.of === o);
        // a dependent that depends on no independent has no tangent parameter: its derivative is zero
        if (ks < 0 || kv < 0) continue;
        want.push(call1[ks]);
        got.push(unpackDirection(call[kv], args[j], k, nb));
      }
      const w = flatten(want), g = flatten(got);
      for (let i = 0; i < w.length; i++) {
        // (the same infinity both ways agrees: a tangent that is not finite is reported as such, below)
        const e = w[i] === g[i] ? 0 : Math.abs(w[i] - g[i]) / Math.max(1, Math.abs(w[i]));
        if (!(e <= vectorError)) vectorError = Number.isNaN(e) ? Infinity : e;
      }
    }
  }
  const acc = (e: number) => (e === 0 ? 16 : Math.min(16, -Math.log10(e)));
  // against divided differences (no tangent) the adjoint is as accurate as they are
  const dotTolerance = info.tangent ? 1e-10 : unstable ? Infinity : tangentTolerance;
  const notFinite = { differences: !d1.every(Number.isFinite) || !d2.every(Number.isFinite), tangent: !!info.tangent && !tf.every(Number.isFinite) };
  // (a tangent that is not finite where the differences are fails even where they are unstable: near
  // the point they are finite numbers, and an infinite derivative is not one to pass silently)
  const ok = !(notFinite.tangent && !notFinite.differences) && (unstable || tangentError <= tangentTolerance) && (!info.fwd || dotError <= dotTolerance) && vectorError <= 1e-12 && (tapeEmpty || !info.fwd);
  // (a tangent of NaN or ±Infinity where the function's divided differences are finite: said so, with
  // the values, rather than as an error of Infinity)
  const at = tf.findIndex((v) => !Number.isFinite(v));
  if (notFinite.tangent && !notFinite.differences) messages.push(`the tangent is not finite (${tf[at]}) where the divided differences are (${d1[at]}): a derivative that does not exist at this point (a square root or a power below 1 at 0) or a bug in tsad`);
  else if (tangentError > tangentTolerance && !unstable) messages.push(`tangent differs from divided differences by ${tangentError.toExponential(2)}`);
  // (a derivative exactly zero where the function visibly changes: piecewise constant as written)
  if (tangentError > tangentTolerance && !unstable && info.tangent && tf.every((v) => v === 0)) messages.push(PIECEWISE_CONSTANT);
  // (NaN included: an adjoint or tangent that is not finite fails the test, and says so)
  if (info.fwd && !(dotError <= dotTolerance)) messages.push(info.tangent ? `dot-product test: ${dotLeft} vs ${dotRight} (relative ${dotError.toExponential(2)})` : `adjoint against divided differences: ${dotLeft} vs ${dotRight} (relative ${dotError.toExponential(2)})`);
  if (vectorError > 1e-12) messages.push(`vector tangent differs from scalar tangents by ${vectorError.toExponential(2)}`);
  void of;
  return { notFinite, ok, tangentError, unstable, judged: !!info.tangent || !unstable, dotLeft, dotRight, dotError, vectorError, tapeEmpty, tape: tapeStats, accuracy: { tangent: acc(tangentError), dot: acc(dotError) }, messages, heldStill };
}
