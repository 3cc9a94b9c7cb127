// GradBench's twelve evals (issue 18, item 7): tsad's primal and derivative of every eval, input by input,
// timed in this process, beside the figures of GradBench's hand-written C++ tool on the same inputs
// (bench/anchors.ts, from ANCHORS.md).
//
//   npm run bench -- --evals-only            this table alone (full: every input below, a few minutes)
//   npm run bench -- --evals-only --quick    one tiny golden input per eval (a few seconds)
//
// What is timed: the functions the GradBench tool answers with (evals/tool.ts: the eval's primal `run`
// and each derivative's `run`, the JSON conversion excluded, as the tool times them), on the prepared
// arguments. Inputs: every ANCHORS.md input whose data this repository can produce — the golden file's
// input where one exists (exactly what the eval sends), otherwise drawn from the eval's distributions
// with the seeded generators of evals/random.ts (not NumPy's draws: same sizes and distributions), or
// built from evals/data (ba, ht, lstm). GradBench's ht hand10 and hand11 are not kept here: inputs of
// their sizes built from hand9 stand beside their C++ figures under labels of their own. ANCHORS.md rows
// whose data files are not kept here are listed as skipped. hello, particle and saddle have no C++
// figures; particle and saddle have no primal (every function is a whole optimisation with nested
// derivatives), so their rows are the four nestings.
//
// Before any timing, every output is checked: against the golden file at the tests' tolerance (suite
// rule at 1e-8), else against the hand-written float64 derivative (lse, llsq, gmm, kmeans; 1-norm
// relative 1e-8), else by a central divided difference along a random direction (det, ode, lstm:
// relative 1e-5; ba, ht: the whole Jacobian's J·v row by row, relative 1e-7, bench/jacobian-check.ts).
// An input whose check fails is not timed, and the process exits non-zero.
//
// Protocol per input: tsad compiles the eval first (as the tool's define does, timed apart), then a first
// call of each function, the check, a calibrating loop per function (≥ 20 ms of calls; 5 ms in quick mode)
// that also warms it up, then rounds that run every function once (a sample: the mean of enough calls
// to last ≥ 5 ms) in a rotating order, about 1 s of rounds per input (3 to 15 rounds; 2 when a round
// takes over 4 s). Wall-clock and CPU time (process.cpuUsage: user + system of the whole process, GC
// and compiler threads included, so it can exceed wall time) are read around every sample: the
// machine is shared, and CPU time does not count other processes' load. Medians and minima per
// function; d/p = derivative / primal of the medians (wall, CPU) and of the minima (wall).
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import type { BaCsr } from '../evals/ba/derivatives.js';
import { loadBaInput, type BaArgs } from '../evals/ba/io.js';
import type { DetArgs } from '../evals/det/io.js';
import { compare, loadGoldenFile, maxNormalisedError, type GoldenFile } from '../evals/golden.js';
import type { GmmJacobian } from '../evals/gmm/derivatives.js';
import { loadHtInput, type HtArgs } from '../evals/ht/io.js';
import { evalNames, type EvalName } from '../evals/index.js';
import type { LstmArgs } from '../evals/lstm/io.js';
import { makeLstmInput } from '../evals/lstm/io.js';
import type { OdeArgs } from '../evals/ode/io.js';
import { dataPath, evalFileExists, goldenDir, repoRoot } from '../evals/paths.js';
import { randomVector, uniform } from '../evals/random.js';
import { compileModule, modules } from '../evals/tool.js';
import { ANCHORS, NO_ANCHOR, anchorOf, type Anchor } from './anchors.js';
import { checkBaJacobian, checkHtJacobian } from './jacobian-check.js';
import { cpuMs, fmtMs, maxErr, measureClocks, repsFor, table, tsadCommit, wallMs, type Stats } from './harness.js';
import { facetLines, facetRatios, writeSvgs, type ChartStyle, type Row, type Spec } from './peers/charts.js';
import { flatten, generate, handwrittenReference, type Args } from './peers/problems.js';
import { mdTable } from './peers/report.js';

/** The tests' tolerance for golden outputs (test/evals.derivatives.test.ts). */
const GOLDEN_TOL = 1e-8;
const HANDWRITTEN_TOL = 1e-8;
const FD_TOL = 1e-5;
/**
 * ba's and ht's whole Jacobians against divided differences, row by row (bench/jacobian-check.ts): the
 * rows' errors are 2e-10 to 5e-10 on ba1, ba3, ba14, hand1, hand5, hand9, so 1e-7 leaves a margin of
 * 200 and still sees one entry 1% off in a row of hand9 (8e-6), which 1e-5 would not.
 */
const JACOBIAN_FD_TOL = 1e-7;

// ---------------------------------------------------------------------------
// Inputs

export interface EvalCase {
  eval: EvalName;
  /** GradBench's description of the input (ANCHORS.md's input column); in quick mode the golden file's stem */
  input: string;
  /** where the input comes from */
  source: string;
  /** the prepared arguments of the tool's functions */
  args: () => unknown;
  /** the golden file of this very input, if there is one */
  golden?: GoldenFile;
  /** the ANCHORS.md input whose C++ figures the row is set beside, when it is not `input` itself (an input of that size built from another) */
  compareWith?: string;
}

export interface Skipped {
  eval: EvalName;
  input: string;
  why: string;
}

function goldenFile(ev: EvalName, stem: string): GoldenFile | undefined {
  const path = join(goldenDir(ev), `${stem}.json`);
  return existsSync(path) ? loadGoldenFile(path) : undefined;
}

function fromGolden(ev: EvalName, input: string, g: GoldenFile): EvalCase {
  return { eval: ev, input, source: `golden ${g.name}`, golden: g, args: () => modules[ev].prepare(g.input) };
}

/** "n=16,m=128" → { n: 16, m: 128 } */
function params(input: string): Record<string, number> {
  return Object.fromEntries(input.split(',').map((kv) => kv.split('=')).map(([k, v]) => [k, Number(v)]));
}

const GENERATED = 'generated (the eval\'s distributions, seeded)';

/** The case of one ANCHORS.md input, or why this repository cannot produce its data. */
function anchorCase(a: Anchor): EvalCase | Skipped {
  const ev = a.eval;
  const viaGolden = (stem: string, gen: () => unknown, source = GENERATED): EvalCase => {
    const g = goldenFile(ev, stem);
    return g ? fromGolden(ev, a.input, g) : { eval: ev, input: a.input, source, args: gen };
  };
  const p = params(a.input);
  switch (ev) {
    case 'det': {
      const ell = Number(a.input);
      return viaGolden(`ell${ell}`, (): DetArgs => ({ A: randomVector(ell * ell, uniform(31337 + ell)), ell }));
    }
    case 'lse':
    case 'llsq':
    case 'kmeans': {
      const stem = ev === 'lse' ? `n${p.n}` : ev === 'llsq' ? `n${p.n}_m${p.m}` : `k${p.k}_n${p.n}_d${p.d}`;
      return viaGolden(stem, () => generate({ eval: ev, params: p }));
    }
    case 'gmm': {
      const [d, k, n] = a.input.split('_').map(Number);
      return viaGolden(`d${d}_k${k}_n${n}`, () => generate({ eval: 'gmm', params: { d, k, n } }));
    }
    case 'ode':
      return viaGolden(`n${p.n}_s${p.s}`, (): OdeArgs => ({ x: randomVector(p.n, uniform(31337 + p.n + p.s)), s: p.s }));
    case 'lstm':
      return viaGolden(`l${p.l}_c${p.c}`, () => modules.lstm.prepare(makeLstmInput(p.l, p.c)), 'evals/data/lstm text, parameters generated (seeded)');
    case 'ba': {
      const g = goldenFile('ba', a.input);
      if (g) return fromGolden(ev, a.input, g);
      if (!evalFileExists(dataPath('ba', `${a.input}.txt`))) return { eval: ev, input: a.input, why: 'data file not in the repository (evals/data/ba keeps ba1–ba14)' };
      return { eval: ev, input: a.input, source: `evals/data/ba/${a.input}.txt`, args: () => modules.ba.prepare(loadBaInput(a.input)) };
    }
    case 'ht': {
      // GradBench's default ht workloads: complicated variant, big model
      const g = goldenFile('ht', `complicated_big_${a.input.replace('_t26', '')}`);
      if (g) return fromGolden(ev, a.input, g);
      if (evalFileExists(dataPath('ht', 'complicated_big', `${a.input}.txt`)))
        return { eval: ev, input: a.input, source: `evals/data/ht/complicated_big/${a.input}.txt`, args: () => modules.ht.prepare(loadHtInput('complicated', 'big', a.input)) };
      return htBuiltFromHand9(a) ?? { eval: ev, input: a.input, why: 'hand file not in the repository (evals/data/ht keeps hand1–hand9)' };
    }
    default:
      throw new Error(`anchors: unexpected eval ${ev}`);
  }
}

const HAND9 = 'hand9_t26_c12800';

/**
 * GradBench's hand10 and hand11 (25 600 and 51 200 correspondences) are not kept anywhere here: an input
 * of the same size is built from hand9's (its correspondences, points and surface coordinates repeated
 * 2 or 4 times, the same theta), and set beside the C++ figures of the real one under its own label.
 * The objective skins the whole model whatever the correspondences, so the work differs from the real
 * input's only in which vertices the residuals read (hand9's, again and again).
 */
function htBuiltFromHand9(a: Anchor): EvalCase | undefined {
  const size = Number(/_c(\d+)$/.exec(a.input)?.[1]);
  const times = size / 12800;
  if (!Number.isInteger(times) || times < 2 || !evalFileExists(dataPath('ht', 'complicated_big', `${HAND9}.txt`))) return undefined;
  const label = `${a.input.split('_')[0]}-sized, built from hand9 (×${times})`;
  return { eval: 'ht', input: label, compareWith: a.input, source: `evals/data/ht/complicated_big/${HAND9}.txt, correspondences repeated ${times}×`, args: () => modules.ht.prepare(repeatCorrespondences(loadHtInput('complicated', 'big', HAND9), times)) };
}

/** The ht input with its correspondences (and their points and surface coordinates) repeated `times` times. */
function repeatCorrespondences(input: Record<string, unknown>, times: number): Record<string, unknown> {
  const data = input['data'] as { model: unknown; correspondences: number[]; points: number[][] };
  const repeat = <T>(xs: T[]): T[] => Array.from({ length: times }, () => xs).flat();
  return { ...input, data: { ...data, correspondences: repeat(data.correspondences), points: repeat(data.points) }, us: repeat(input['us'] as number[][]) };
}

/** Inputs without C++ figures: the evals' own inputs (hello: the first round's; particle, saddle: their one workload). */
const OWN_INPUTS: Partial<Record<EvalName, [string, string]>> = {
  hello: ['1', 'x_1'],
  particle: ['w=0', 'w_0'],
  saddle: ['start=[1,1]', 'start_1_1'],
};

/** One tiny golden instance per eval (--quick). */
const QUICK_INPUTS: Record<EvalName, string> = {
  hello: 'x_1',
  lse: 'tiny_stability',
  llsq: 'tiny_n5_m3',
  det: 'ell5',
  ode: 'tiny_n4_s2',
  gmm: 'tiny_d3_k4_n10_m2',
  kmeans: 'tiny_k2_n6_d2',
  lstm: 'tiny_l1_c8',
  ba: 'tiny_n3_m4_p10',
  ht: 'simple_small_hand1_c100',
  saddle: 'start_1_1',
  particle: 'w_0',
};

function golden(ev: EvalName, stem: string): GoldenFile {
  const g = goldenFile(ev, stem);
  if (!g) throw new Error(`evals bench: no golden file ${ev}/${stem}`);
  return g;
}

/** The inputs of a run, in the evals' order (evals/index.ts), and the ANCHORS.md inputs left out. */
export function evalCases(quick: boolean, only?: readonly EvalName[]): { cases: EvalCase[]; skipped: Skipped[] } {
  const cases: EvalCase[] = [];
  const skipped: Skipped[] = [];
  for (const ev of evalNames) {
    if (only && !only.includes(ev)) continue;
    if (quick) {
      const stem = QUICK_INPUTS[ev];
      cases.push(fromGolden(ev, stem, golden(ev, stem)));
      continue;
    }
    const own = OWN_INPUTS[ev];
    if (own) cases.push(fromGolden(ev, own[0], golden(ev, own[1])));
    for (const a of ANCHORS.filter((x) => x.eval === ev)) {
      const c = anchorCase(a);
      if ('why' in c) skipped.push(c);
      else cases.push(c);
    }
  }
  return { cases, skipped };
}

// ---------------------------------------------------------------------------
// Checks

export interface Check {
  against: 'golden' | 'hand-written' | 'divided difference';
  /** golden: the suite's normalised error; hand-written: 1-norm relative (and the value's normalised error); divided difference: relative */
  err: number;
  tol: number;
  pass: boolean;
  detail?: string;
}

/** A random direction in [-1, 1) of the given length (fixed seed). */
function direction(n: number): number[] {
  return randomVector(n, uniform(4242)).map((u) => 2 * u - 1);
}

function dotFlat(a: ArrayLike<number>, b: ArrayLike<number>): { dot: number; abs: number } {
  let dot = 0, abs = 0;
  for (let i = 0; i < b.length; i++) {
    dot += a[i] * b[i];
    abs += Math.abs(a[i] * b[i]);
  }
  return { dot, abs };
}

/** Central divided difference of the primal along a random direction v against ⟨derivative, v⟩. */
function dividedDifference(ev: EvalName, args: unknown, grad: number[]): Check {
  const primal = (a: unknown): number => {
    const r = modules[ev].fns[ev === 'lstm' ? 'objective' : 'primal'].run(a);
    return r instanceof Float64Array ? r[r.length - 1] : (r as number); // ode: the derivative is of Y[n-1]
  };
  const v = direction(grad.length);
  const add = (x: number[], t: number, off: number) => x.map((e, i) => e + t * v[off + i]);
  let at: (t: number) => unknown;
  if (ev === 'det') {
    const a = args as DetArgs;
    at = (t) => ({ ...a, A: add(a.A, t, 0) });
  } else if (ev === 'ode') {
    const a = args as OdeArgs;
    at = (t) => ({ ...a, x: add(a.x, t, 0) });
  } else if (ev === 'lstm') {
    const a = args as LstmArgs;
    const w = a.mainParams[0].length, we = a.extraParams[0].length, main = a.mainParams.length * w;
    at = (t) => ({ ...a, mainParams: a.mainParams.map((r, i) => add(r, t, i * w)), extraParams: a.extraParams.map((r, i) => add(r, t, main + i * we)) });
  } else {
    throw new Error(`no divided-difference check for ${ev}`);
  }
  const h = 1e-6;
  const fd = (primal(at(h)) - primal(at(-h))) / (2 * h);
  const { dot, abs } = dotFlat(grad, v);
  const err = abs === 0 && fd === 0 ? 0 : Math.abs(fd - dot) / Math.max(abs, Number.MIN_VALUE);
  return { against: 'divided difference', err, tol: FD_TOL, pass: err <= FD_TOL, detail: abs === 0 ? 'zero gradient and zero difference (ode: Y[n-1] is 0 at these sizes)' : undefined };
}

/** The divided-difference check of a whole ba or ht Jacobian (bench/jacobian-check.ts). */
function jacobianCheck(c: EvalCase, args: unknown, result: unknown): Check {
  const r = c.eval === 'ba' ? checkBaJacobian(args as BaArgs, result as BaCsr) : checkHtJacobian(args as HtArgs, result as Parameters<typeof checkHtJacobian>[1]);
  const pass = r.err <= JACOBIAN_FD_TOL;
  return { against: 'divided difference', err: r.err, tol: JACOBIAN_FD_TOL, pass, detail: pass ? undefined : `J·v against the divided difference: row ${r.row} of ${r.rows}` };
}

/** Checks every output of a case (primal and derivatives, as the tool's JSON; `results`: what the functions returned). */
function check(c: EvalCase, args: unknown, outputs: Record<string, unknown>, results: Record<string, unknown>, derivs: string[]): Check {
  if (c.golden) {
    let worst = 0;
    const bad: string[] = [];
    for (const [fn, out] of Object.entries(outputs)) {
      const e = c.golden.outputs[fn];
      const ms = compare(out, e, GOLDEN_TOL, 3);
      // (a structural mismatch has no numeric error)
      worst = Math.max(worst, ms.some((m) => m.err === undefined) ? Infinity : maxNormalisedError(out, e));
      if (ms.length) bad.push(`${fn}: ${ms.map((m) => `${m.path} ${JSON.stringify(m.actual)} vs ${JSON.stringify(m.expected)}`).join('; ')}`);
    }
    return { against: 'golden', err: worst, tol: GOLDEN_TOL, pass: bad.length === 0, detail: bad.length ? bad.join(' | ') : undefined };
  }
  const out = outputs[derivs[0]];
  switch (c.eval) {
    case 'lse':
    case 'llsq':
    case 'gmm':
    case 'kmeans': {
      const ref = handwrittenReference(c.eval, args as Args[typeof c.eval]);
      const g = c.eval === 'gmm' ? flatten([(out as GmmJacobian).alpha, (out as GmmJacobian).mu, (out as GmmJacobian).q, (out as GmmJacobian).l]) : flatten(out);
      // 1-norm relative: lse's max shift has an adjoint 1 - Σ softmax that is 0 in exact arithmetic and a
      // rounding residual (~1e-14 at n = 1.28M) on the argmax component in tsad's (exact) derivative of
      // the floating-point program, which the hand-written softmax does not compute; entries are ~1/n,
      // so that residual alone is 4e-8 of the largest one, while one wrong entry would still be ≥ 1/n of the 1-norm
      let diff = 0, scale = 0;
      for (let i = 0; i < ref.grad.length; i++) {
        diff += Number.isFinite(g[i]) ? Math.abs(g[i] - ref.grad[i]) : Infinity;
        scale += Math.abs(ref.grad[i]);
      }
      const primalName = Object.keys(outputs).find((k) => !derivs.includes(k));
      const valueErr = primalName === undefined ? 0 : maxErr(outputs[primalName], ref.value);
      const err = g.length === ref.grad.length ? Math.max(diff / (scale || 1), valueErr) : Infinity;
      return { against: 'hand-written', err, tol: HANDWRITTEN_TOL, pass: err <= HANDWRITTEN_TOL };
    }
    case 'det':
    case 'ode':
    case 'lstm':
      return dividedDifference(c.eval, args, out as number[]);
    case 'ba':
    case 'ht':
      return jacobianCheck(c, args, results[derivs[0]]);
    default:
      throw new Error(`evals bench: no check for ${c.eval} ${c.input}`);
  }
}

// ---------------------------------------------------------------------------
// Timing

export interface Timing {
  wall: Stats;
  cpu: Stats;
}

export interface EvalRow {
  eval: EvalName;
  input: string;
  source: string;
  /** the eval's primal function (none for particle, saddle) */
  primal?: string;
  derivatives: string[];
  check: Check;
  /** 1-min load average when the input started */
  load: number;
  /** ms of the first call of each function on this input (tsad's compilation of the eval comes before) */
  firstCallMs: Record<string, number>;
  protocol?: { warmups: number; runs: number; reps: Record<string, number> };
  timings?: Record<string, Timing>;
  cpp?: Anchor;
}

/** ms per call of `run`, calling it until `minMs` have passed (also a warm-up). */
function perCall(run: () => unknown, minMs: number): number {
  let n = 0;
  const t0 = performance.now();
  let t = t0;
  do {
    run();
    n++;
    t = performance.now();
  } while (t - t0 < minMs && n < 1_000_000);
  return (t - t0) / n;
}

export interface EvalsOptions {
  quick: boolean;
  log?: (s: string) => void;
  /** only these evals */
  only?: readonly EvalName[];
}

function timeCase(c: EvalCase, quick: boolean, log: (s: string) => void): EvalRow {
  const m = modules[c.eval];
  const derivs = m.derivatives;
  const primal = Object.keys(m.fns).find((k) => !derivs.includes(k));
  const fns = [...derivs, ...(primal ? [primal] : [])];
  const load = os.loadavg()[0];
  const args = c.args();
  const firstCallMs: Record<string, number> = {};
  const outputs: Record<string, unknown> = {};
  const results: Record<string, unknown> = {};
  for (const fn of fns) {
    const t0 = performance.now();
    const r = m.fns[fn].run(args);
    firstCallMs[fn] = performance.now() - t0;
    results[fn] = r;
    outputs[fn] = m.fns[fn].toJson(r);
  }
  const row: EvalRow = { eval: c.eval, input: c.input, source: c.source, primal, derivatives: derivs, check: check(c, args, outputs, results, derivs), load, firstCallMs, cpp: anchorOf(c.eval, c.compareWith ?? c.input) };
  if (!row.check.pass) {
    log(`evals: ${c.eval} ${c.input}: CHECK FAILED against ${row.check.against} (err ${row.check.err.toExponential(2)}): ${row.check.detail ?? ''} — not timed`);
    return row;
  }
  const callMs = Object.fromEntries(fns.map((fn) => [fn, firstCallMs[fn] >= 300 ? firstCallMs[fn] : perCall(() => m.fns[fn].run(args), quick ? 5 : 20)]));
  const reps = Object.fromEntries(fns.map((fn) => [fn, repsFor(callMs[fn], quick ? 1 : 5)]));
  const roundMs = fns.reduce((s, fn) => s + reps[fn] * callMs[fn], 0);
  const runs = Math.max(roundMs > 4000 ? 2 : 3, Math.min(quick ? 3 : 15, Math.round((quick ? 50 : 1000) / roundMs)));
  const warmups = !quick && roundMs < 500 ? 1 : 0;
  const variants = fns.map((fn) => ({
    name: fn,
    reps: reps[fn],
    run: () => {
      const r = m.fns[fn].run(args);
      return typeof r === 'number' ? r : 0;
    },
  }));
  const T = measureClocks(variants, warmups, runs, [wallMs, cpuMs]);
  row.protocol = { warmups, runs, reps };
  row.timings = Object.fromEntries(fns.map((fn) => [fn, { wall: T.get(fn)![0], cpu: T.get(fn)![1] }]));
  log(`evals: ${c.eval} ${c.input}: ${fns.map((fn) => `${fn} ${fmtMs(row.timings![fn].wall.median)}`).join(', ')} (${runs} rounds; check ${row.check.against} ${row.check.err.toExponential(1)}; load ${load.toFixed(1)})`);
  return row;
}

export interface EvalsResults {
  date: string;
  mode: 'full' | 'quick';
  tsad: { commit: string; dirty: boolean | null };
  machine: { cpu: string; cores: number; node: string; v8: string; platform: string };
  loadAverage: { start: number; end: number };
  units: { time: string };
  /** tsad's compilation of each eval (the tool's define: every derivative once on its tiny inputs), excluded from everything else */
  compileMs: Partial<Record<EvalName, number>>;
  rows: EvalRow[];
  skipped: Skipped[];
  totalSeconds: number;
}

export function evalsBench(opts: EvalsOptions): EvalsResults {
  const log = opts.log ?? (() => undefined);
  const started = performance.now();
  const loadStart = os.loadavg()[0];
  const { cases, skipped } = evalCases(opts.quick, opts.only);
  const compileMs: Partial<Record<EvalName, number>> = {};
  const rows = cases.map((c) => {
    if (compileMs[c.eval] === undefined) {
      // as the tool's define: every derivative once on the tool's tiny inputs (tsad compiles the eval)
      compileMs[c.eval] = compileModule(modules[c.eval]).reduce((s, t) => s + t.nanoseconds / 1e6, 0);
    }
    return timeCase(c, opts.quick, log);
  });
  const cpus = os.cpus();
  return {
    date: new Date().toISOString(),
    mode: opts.quick ? 'quick' : 'full',
    tsad: tsadCommit(),
    machine: { cpu: cpus[0]?.model.trim() ?? 'unknown', cores: cpus.length, node: process.version, v8: process.versions.v8, platform: `${os.platform()} ${os.arch()}` },
    loadAverage: { start: loadStart, end: os.loadavg()[0] },
    units: { time: 'ms per call' },
    compileMs,
    rows,
    skipped,
    totalSeconds: (performance.now() - started) / 1000,
  };
}

// ---------------------------------------------------------------------------
// Ratios and targets

export interface Ratios {
  /** derivative / primal: medians (wall), minima (wall), medians (CPU) */
  dp?: { wall: number; wallMin: number; cpu: number };
  /** tsad's d/p (wall medians) ÷ the C++ tool's d/p */
  vsCpp?: number;
  /** tsad's derivative time (wall median) ÷ the C++ tool's */
  timeVsCpp?: number;
  target?: { text: string; wall: boolean; cpu: boolean } | { text: string; na: string };
}

/** The ratios of one derivative function of a row, and its target (issue 18; else ANCHORS.md's general one). */
export function ratios(r: EvalRow, fn: string): Ratios {
  const T = r.timings;
  if (!T) return {};
  const d = T[fn];
  const out: Ratios = {};
  if (r.primal) {
    const p = T[r.primal];
    out.dp = { wall: d.wall.median / p.wall.median, wallMin: d.wall.min / p.wall.min, cpu: d.cpu.median / p.cpu.median };
  }
  if ((r.eval === 'particle' || r.eval === 'saddle') && fn === 'rr') {
    const ff = T['ff'];
    const w = d.wall.median / ff.wall.median, c = d.cpu.median / ff.cpu.median;
    out.target = { text: `rr ≤ 3× ff (issue 18): ${w.toFixed(2)}× (CPU ${c.toFixed(2)}×)`, wall: w <= 3, cpu: c <= 3 };
  }
  const cpp = r.cpp;
  if (!cpp || !out.dp) return out;
  out.vsCpp = out.dp.wall / cpp.dp;
  out.timeVsCpp = d.wall.median / cpp.derivativeMs;
  if (r.eval === 'ode') out.target = { text: 'd/p ≤ C++', na: "n/a: C++'s derivative is a closed form" };
  else if (r.eval === 'ht') out.target = { text: 'time ≤ C++ (issue 18)', wall: d.wall.median <= cpp.derivativeMs, cpu: d.cpu.median <= cpp.derivativeMs };
  else out.target = { text: `d/p ≤ C++${r.eval === 'det' || r.eval === 'ba' ? ' (issue 18)' : ''}`, wall: out.dp.wall <= cpp.dp, cpu: out.dp.cpu <= cpp.dp };
  return out;
}

function verdict(t: Ratios['target']): string {
  if (!t) return '';
  if ('na' in t) return t.na;
  if (t.wall && t.cpu) return 'met';
  if (!t.wall && !t.cpu) return 'MISSED';
  return t.cpu ? 'met by CPU time, not wall' : 'met by wall time, not CPU';
}

// ---------------------------------------------------------------------------
// Report

const x = (v: number | undefined): string => (v === undefined || !Number.isFinite(v) ? '–' : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
const ms = (v: number | undefined): string => (v === undefined ? '–' : v < 1e-3 ? `${(v * 1e6).toFixed(0)} ns` : fmtMs(v));

const HEAD = ['eval', 'input', 'primal', 'derivative', 'd/p', 'd/p min', 'd/p CPU', 'C++ d/p', '÷ C++', 'time ÷ C++', 'target', 'verdict', 'check'];

function tableRows(r: EvalsResults): string[][] {
  const out: string[][] = [];
  for (const row of r.rows) {
    const checkText = `${row.check.pass ? '' : 'FAILED '}${row.check.against} ${row.check.err.toExponential(0)}`;
    for (const fn of row.derivatives) {
      const q = ratios(row, fn);
      const T = row.timings;
      const label = row.derivatives.length > 1 ? `${row.input} ${fn}` : row.input;
      out.push([
        row.eval,
        label,
        T && row.primal ? ms(T[row.primal].wall.median) : '–',
        T ? ms(T[fn].wall.median) : 'not timed',
        x(q.dp?.wall),
        x(q.dp?.wallMin),
        x(q.dp?.cpu),
        x(row.cpp?.dp),
        x(q.vsCpp),
        x(q.timeVsCpp),
        q.target?.text ?? '',
        verdict(q.target),
        checkText,
      ]);
    }
  }
  return out;
}

function header(r: EvalsResults): string {
  const m = r.machine;
  return (
    `GradBench evals ${r.date.slice(0, 10)}${r.mode === 'quick' ? ' (--quick: tiny golden inputs)' : ''} at ${r.tsad.commit}${r.tsad.dirty ? ' (uncommitted changes)' : ''} — ` +
    `${m.cpu}, ${m.cores} cores, Node ${m.node}; 1-min load ${r.loadAverage.start.toFixed(1)} at start, ${r.loadAverage.end.toFixed(1)} at end; ${r.totalSeconds.toFixed(0)} s`
  );
}

function notes(r: EvalsResults): string[] {
  const out = [
    'primal, derivative: wall-clock medians per call; d/p: their quotient (d/p min: of the minima; d/p CPU: of the CPU-time medians); ' +
      "C++: GradBench's hand-written tool (bench/anchors.ts); ÷ C++: tsad's d/p over C++'s; time ÷ C++: tsad's derivative time over C++'s.",
  ];
  out.push(`tsad's compilation per eval (the tool's define; not in any figure above): ${Object.entries(r.compileMs).map(([ev, t]) => `${ev} ${fmtMs(t)}`).join(', ')}`);
  for (const [ev, why] of Object.entries(NO_ANCHOR)) out.push(`no C++ figures for ${ev}: ${why}`);
  if (r.mode === 'full' && r.rows.some((row) => row.eval === 'ode'))
    out.push("ode: the derivative the eval asks for, d Y[n-1]/dx, is 0 at every default size (Y[n-1] itself is 0 there), so its checks, like GradBench's, only confirm zeros; C++'s derivative is a closed form, not the program's");
  if (r.skipped.length) {
    const by = new Map<string, Skipped[]>();
    for (const s of r.skipped) by.set(`${s.eval}: ${s.why}`, [...(by.get(`${s.eval}: ${s.why}`) ?? []), s]);
    for (const [k, v] of by) out.push(`skipped ${k} — ${v.map((s) => s.input.split('_')[0]).join(', ')}`);
  }
  for (const row of r.rows) if (row.cpp && row.cpp.input !== row.input) out.push(`${row.eval} ${row.input}: not GradBench's ${row.cpp.input} (not kept here) but ${row.source}; set beside C++'s figures for ${row.cpp.input}`);
  const failed = r.rows.filter((row) => !row.check.pass);
  for (const f of failed) out.push(`CHECK FAILED ${f.eval} ${f.input} against ${f.check.against}: ${f.check.detail ?? `err ${f.check.err}`}`);
  return out;
}

/** The table as plain text (console). */
export function evalsTable(r: EvalsResults): string {
  return [header(r), '', table(HEAD, tableRows(r)), '', ...notes(r)].join('\n');
}

/** The same as Markdown (for BENCHMARKS.md). */
export function evalsMarkdown(r: EvalsResults): string {
  return [header(r), '', mdTable(HEAD, tableRows(r)), '', ...notes(r).map((n) => `* ${n}`)].join('\n');
}

const CHART_EVALS = evalNames.filter((e) => ANCHORS.some((a) => a.eval === e));

/** Charts: tsad's and C++'s d/p per eval over the inputs, and their quotient. */
async function writeCharts(r: EvalsResults, dir: string): Promise<string[]> {
  // tsad's d/p of wall-clock and of CPU-time medians, and the C++ tool's
  const [wall, cpu, cpp] = ['tsad (wall)', 'tsad (CPU)', 'C++ (manual)'];
  const style: ChartStyle = { series: [wall, cpu, cpp], colors: ['#d62728', '#ff9896', '#1f77b4'], facets: CHART_EVALS, shapes: false };
  const dp: Row[] = [], rel: Row[] = [];
  r.rows.forEach((row, order) => {
    const q = ratios(row, row.derivatives[0]);
    if (!row.cpp || !q.dp) return;
    const at = { eval: row.eval, size: row.input, order, note: 'measured' };
    dp.push({ ...at, peer: wall, value: q.dp.wall }, { ...at, peer: cpu, value: q.dp.cpu }, { ...at, peer: cpp, value: row.cpp.dp });
    rel.push({ ...at, peer: wall, value: q.dp.wall / row.cpp.dp }, { ...at, peer: cpu, value: q.dp.cpu / row.cpp.dp });
  });
  const when = `${r.date.slice(0, 10)} at ${r.tsad.commit}, ${r.machine.cpu} ×${r.machine.cores}, load ${r.loadAverage.start.toFixed(1)}–${r.loadAverage.end.toFixed(1)}`;
  const charts: [string, Spec][] = [
    ['evals-derivative-over-primal.svg', facetLines(`Derivative / primal, tsad and GradBench's C++ tool (${when})`, dp, 'derivative / primal (log)', style)],
    ['evals-ratio-vs-cpp.svg', facetRatios(`tsad's d/p ÷ C++'s d/p (below 1: tsad's ratio is lower) (${when})`, rel, 'tsad d/p ÷ C++ d/p (log)', 1, { ...style, series: [wall, cpu] })],
  ];
  return writeSvgs(dir, charts);
}

/**
 * Writes bench/evals-results.json (quick: evals-results.quick.json), the Markdown table to
 * bench/generated/evals-table.md and the charts (full: bench/charts/; quick:
 * bench/generated/evals-charts-quick/); returns the paths. Sets a non-zero exit code when a check failed.
 */
export async function writeEvalsOutputs(r: EvalsResults): Promise<string[]> {
  const quick = r.mode === 'quick';
  const json = join(repoRoot, 'bench', quick ? 'evals-results.quick.json' : 'evals-results.json');
  const rounded = (s: Stats): Stats => ({ ...s, samples: s.samples.map((v) => +v.toPrecision(5)) });
  const rows = r.rows.map((row) => ({
    ...row,
    timings: row.timings && Object.fromEntries(Object.entries(row.timings).map(([k, t]) => [k, { wall: rounded(t.wall), cpu: rounded(t.cpu) }])),
    ratios: Object.fromEntries(row.derivatives.map((fn) => [fn, ratios(row, fn)])),
  }));
  writeFileSync(json, JSON.stringify({ ...r, rows }, null, 2) + '\n');
  const gen = join(repoRoot, 'bench', 'generated');
  mkdirSync(gen, { recursive: true });
  const md = join(gen, quick ? 'evals-table.quick.md' : 'evals-table.md');
  writeFileSync(md, evalsMarkdown(r) + '\n');
  const charts = await writeCharts(r, quick ? join(gen, 'evals-charts-quick') : join(repoRoot, 'bench', 'charts'));
  if (r.rows.some((row) => !row.check.pass)) process.exitCode = 1;
  return [json, md, ...charts];
}
