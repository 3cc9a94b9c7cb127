// Benchmark plumbing: interleaved timing, statistics, and building argument lists for generated
// derivative functions from the compiler's manifest. Not compiler input.
import { execFileSync } from 'node:child_process';
import type { ManifestEntry } from '../src/api/compile.js';
import { repoRoot } from '../evals/paths.js';
import type { Tape } from '../src/runtime/tape.js';

// ---------------------------------------------------------------------------
// Timing

export interface Variant {
  name: string;
  /** one timed call; the result feeds a checksum so the work cannot be optimised away */
  run: () => number;
  /**
   * calls per sample (default 1), the sample being their mean: a call of a few µs timed alone is mostly
   * the timer and the call around it
   */
  reps?: number;
}

export interface Stats {
  median: number;
  min: number;
  mean: number;
  n: number;
  samples: number[];
}

export function stats(samples: number[]): Stats {
  const s = [...samples].sort((a, b) => a - b);
  const mid = s.length >> 1;
  const median = s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
  const mean = s.reduce((a, b) => a + b, 0) / s.length;
  return { median, min: s[0], mean, n: s.length, samples };
}

/** Keeps results alive (read at the end of the run). */
export let checksum = 0;

/** a clock in ms: wall time, or this process's CPU time (user + system; a shared machine's load does not count) */
export const wallMs = (): number => performance.now();
export const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/**
 * Runs every variant once per round, `warmups + runs` rounds, rotating the order each round so no
 * variant always runs first (or right after the most allocating one). Times in milliseconds.
 */
export function measure(variants: Variant[], warmups: number, runs: number, progress?: (round: number) => void, clock: () => number = wallMs): Map<string, Stats> {
  return new Map([...measureClocks(variants, warmups, runs, [clock], progress)].map(([k, s]) => [k, s[0]]));
}

/** measure() reading several clocks around each sample (e.g. [wallMs, cpuMs]): Stats per variant, one per clock. */
export function measureClocks(variants: Variant[], warmups: number, runs: number, clocks: (() => number)[], progress?: (round: number) => void): Map<string, Stats[]> {
  const samples = new Map<string, number[][]>(variants.map((v) => [v.name, clocks.map(() => [])]));
  const t0 = new Array<number>(clocks.length);
  for (let round = 0; round < warmups + runs; round++) {
    for (let j = 0; j < variants.length; j++) {
      const v = variants[(round + j) % variants.length];
      const reps = v.reps ?? 1;
      let r = 0;
      for (let c = 0; c < clocks.length; c++) t0[c] = clocks[c]();
      for (let k = 0; k < reps; k++) r += v.run();
      const t1 = clocks.map((c) => c());
      checksum += Number.isFinite(r) ? r * 1e-300 : 1;
      if (round >= warmups) samples.get(v.name)!.forEach((s, c) => s.push((t1[c] - t0[c]) / reps));
    }
    progress?.(round);
  }
  return new Map([...samples].map(([k, s]) => [k, s.map(stats)]));
}

/**
 * Calls per sample so that a sample lasts at least `targetMs` (at most `maxReps`), from the time of
 * one call (a call of a few µs timed alone is mostly the timer and the call around it).
 */
export function repsFor(callMs: number, targetMs: number, maxReps = 100_000): number {
  return Math.max(1, Math.min(maxReps, Math.ceil(targetMs / Math.max(callMs, 1e-5))));
}

/** The git commit measured, and whether src/ or evals/ had uncommitted changes (`override`: a commit named from outside, for a snapshot without .git). */
export function tsadCommit(override?: string): { commit: string; dirty: boolean | null } {
  if (override) return { commit: override, dirty: false };
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim();
    const st = execFileSync('git', ['status', '--porcelain', '--', 'src', 'evals'], { cwd: repoRoot, encoding: 'utf8' }).trim();
    return { commit, dirty: st.length > 0 };
  } catch {
    return { commit: 'unknown', dirty: null };
  }
}

// ---------------------------------------------------------------------------
// Value structures (number, number[], number[][], Float64Array)

export type Value = number | number[] | number[][] | Float64Array;

export function zerosShaped<T>(v: T): T {
  if (typeof v === 'number') return 0 as T;
  if (v instanceof Float64Array) return new Float64Array(v.length) as T;
  if (Array.isArray(v)) return (v.length && typeof v[0] !== 'number' ? v.map((e) => zerosShaped(e)) : new Array<number>(v.length).fill(0)) as T;
  throw new Error('zerosShaped: unsupported value');
}

export function randomShaped<T>(v: T, rand: () => number): T {
  if (typeof v === 'number') return rand() as T;
  if (v instanceof Float64Array) return Float64Array.from(v, () => rand()) as T;
  if (Array.isArray(v)) return v.map((e) => (typeof e === 'number' ? rand() : randomShaped(e, rand))) as T;
  throw new Error('randomShaped: unsupported value');
}

/**
 * Vector-mode tangent of `nd` direction structures of one shape: every innermost number array of
 * length L becomes a number[] of length L*nd holding direction k of element i at [i*nd + k]
 * (the layout of the generated `_dv` functions).
 */
export function interleave(dirs: unknown[]): unknown {
  const nd = dirs.length;
  const d0 = dirs[0];
  if (Array.isArray(d0) && (d0.length === 0 || typeof d0[0] === 'number')) {
    const out = new Array<number>(d0.length * nd);
    for (let i = 0; i < d0.length; i++) for (let k = 0; k < nd; k++) out[i * nd + k] = (dirs[k] as number[])[i];
    return out;
  }
  if (Array.isArray(d0)) return d0.map((_, i) => interleave(dirs.map((d) => (d as unknown[])[i])));
  throw new Error('interleave: unsupported value');
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !ArrayBuffer.isView(v);
}

/** Sum over all numbers of a*b for two structures of one shape (arrays, typed arrays, records). */
export function dot(a: unknown, b: unknown): number {
  if (typeof a === 'number') return a * (b as number);
  if (isRecord(a)) return Object.keys(a).reduce((s, k) => s + dot(a[k], (b as Record<string, unknown>)[k]), 0);
  const aa = a as ArrayLike<unknown>, bb = b as ArrayLike<unknown>;
  let s = 0;
  for (let i = 0; i < aa.length; i++) s += dot(aa[i], bb[i]);
  return s;
}

/** Largest |a-e| / max(1, |a|+|e|) over two structures (the suite's error measure). */
export function maxErr(a: unknown, e: unknown): number {
  if (typeof e === 'number') {
    const x = a as number;
    if (!Number.isFinite(x)) return Infinity;
    return Math.abs(x - e) / Math.max(1, Math.abs(x) + Math.abs(e));
  }
  if (isRecord(e)) {
    if (!isRecord(a)) return Infinity;
    const keys = Object.keys(e);
    if (keys.length !== Object.keys(a).length) return Infinity;
    return keys.reduce((m, k) => Math.max(m, k in a ? maxErr(a[k], e[k]) : Infinity), 0);
  }
  const aa = a as ArrayLike<unknown>, ee = e as ArrayLike<unknown>;
  if (aa.length !== ee.length) return Infinity;
  let m = 0;
  for (let i = 0; i < ee.length; i++) m = Math.max(m, maxErr(aa[i], ee[i]));
  return m;
}

export function relErr(a: number, e: number): number {
  return Math.abs(a - e) / Math.max(Math.abs(a), Math.abs(e), 1e-300);
}

/** Number of floats in a structure. */
export function count(v: unknown): number {
  if (typeof v === 'number') return 1;
  if (isRecord(v)) return Object.values(v).reduce((s: number, x) => s + count(x), 0);
  const a = v as ArrayLike<unknown>;
  let s = 0;
  for (let i = 0; i < a.length; i++) s += count(a[i]);
  return s;
}

// ---------------------------------------------------------------------------
// Argument lists from the manifest

export interface ArgValues {
  primal: Record<string, unknown>;
  /** tangents (modes tangent/vector) or adjoints (reverse), by the name of their primal */
  deriv?: Record<string, unknown>;
  seed?: number;
  nbdirs?: number;
  tape?: Tape;
}

export function buildArgs(entry: ManifestEntry, v: ArgValues): unknown[] {
  return entry.params.map((p) => {
    switch (p.role) {
      case 'primal':
        if (!(p.name in v.primal)) throw new Error(`${entry.name}: no value for primal '${p.name}'`);
        return v.primal[p.name];
      case 'tangent':
      case 'adjoint':
        if (!v.deriv || !p.of || !(p.of in v.deriv)) throw new Error(`${entry.name}: no derivative value for '${p.name}'`);
        return v.deriv[p.of];
      case 'seed':
        return v.seed ?? 1;
      case 'directions':
        return v.nbdirs;
      case 'tape':
        return v.tape;
    }
  });
}

// ---------------------------------------------------------------------------
// Tape heights

export interface TapeHeights {
  floats: number;
  ints: number;
  refs: number;
}

/**
 * Entries currently on the tape by kind. Reads Tape's private counters (chunk index and offset per
 * stack); returns null if they are not there (the Tape layout changed). Read after X_fwd, before
 * X_bwd: forward sweeps only push, so this is the number of pushes of the run.
 */
export function tapeHeights(t: Tape): TapeHeights | null {
  return t.heights;
}

// ---------------------------------------------------------------------------
// Formatting

export function fmtMs(ms: number): string {
  if (ms >= 1000) return (ms / 1000).toFixed(2) + ' s';
  if (ms >= 100) return ms.toFixed(0) + ' ms';
  if (ms >= 10) return ms.toFixed(1) + ' ms';
  // (a call of a few µs, the sparse table's primal, would print as 0.01 ms)
  if (ms < 0.1) return (ms * 1000).toFixed(1) + ' µs';
  return ms.toFixed(2) + ' ms';
}

export function fmtBytes(b: number): string {
  if (b >= 1 << 30) return (b / (1 << 30)).toFixed(2) + ' GiB';
  if (b >= 1 << 20) return (b / (1 << 20)).toFixed(1) + ' MiB';
  if (b >= 1 << 10) return (b / (1 << 10)).toFixed(1) + ' KiB';
  return b + ' B';
}

export function fmtCount(n: number): string {
  if (n >= 1e9) return (n / 1e9).toFixed(2) + 'G';
  if (n >= 1e6) return (n / 1e6).toFixed(2) + 'M';
  if (n >= 1e3) return (n / 1e3).toFixed(1) + 'k';
  return String(n);
}

/** A plain-text table with a header row; columns padded, numbers right-aligned. */
export function table(header: string[], rows: string[][]): string {
  const w = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const right = header.map((_, i) => rows.every((r) => !r[i] || /^[-+<>≤=~\d.]/.test(r[i])));
  const line = (r: string[]) => r.map((c, i) => (right[i] ? (c ?? '').padStart(w[i]) : (c ?? '').padEnd(w[i]))).join('  ').trimEnd();
  return [line(header), w.map((n) => '-'.repeat(n)).join('  '), ...rows.map(line)].join('\n');
}
