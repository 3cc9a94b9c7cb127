// Golden files of the GradBench evals and the suite's comparison rule.
//
// A golden file is { meta, input, outputs } (see golden/README.md).
// The comparison follows the suite's validation rule:
//   * same structure: objects with exactly the same keys, arrays of the same length;
//   * numbers: |a - e| <= tol * max(1, |a| + |e|)  (the eval uses tol = 1e-4;
//     tsad's own tests use a much tighter tol, e.g. 1e-8);
//   * when both numbers are integers they must be equal exactly;
//   * strings / booleans / null must be equal.
// JSON.parse loses the int/float distinction of the JSON text, so "integer" is
// approximated here by Number.isSafeInteger on both sides (integral doubles
// above 2^53 are compared with the tolerance instead).
// Typed arrays (Float64Array, ...) on the actual side are treated like arrays.

import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { goldenDir, readEvalFile } from './paths.js';

export interface GoldenMeta {
  eval: string;
  instance: string;
  generator: string;
  reference: string;
  [extra: string]: unknown;
}

export interface GoldenFile {
  /** file stem, e.g. "d2_k5_n1000" */
  name: string;
  /** absolute path of the file */
  path: string;
  meta: GoldenMeta;
  /** the eval-specific input (without min_runs / min_seconds) */
  input: unknown;
  /** expected output per function name */
  outputs: Record<string, unknown>;
}

/** All golden instances of one eval, sorted by file name. */
export function loadGolden(evalName: string): GoldenFile[] {
  const dir = goldenDir(evalName);
  const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
  return files.map((f) => loadGoldenFile(join(dir, f)));
}

/** One golden file by path. */
export function loadGoldenFile(path: string): GoldenFile {
  const raw: unknown = JSON.parse(readEvalFile(path));
  if (!isRecord(raw) || !isRecord(raw['meta']) || !isRecord(raw['outputs']) || !('input' in raw)) {
    throw new Error(`${path}: not a golden file ({meta, input, outputs})`);
  }
  return {
    name: basename(path, '.json'),
    path,
    meta: raw['meta'] as GoldenMeta,
    input: raw['input'],
    outputs: raw['outputs'],
  };
}

/** The eval names that have a golden directory. */
export function goldenEvals(): string[] {
  return readdirSync(goldenDir(), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !ArrayBuffer.isView(v);
}

function asArray(v: unknown): ArrayLike<unknown> | null {
  if (Array.isArray(v)) return v;
  if (ArrayBuffer.isView(v) && !(v instanceof DataView)) return v as unknown as ArrayLike<unknown>;
  return null;
}

/** Does one number pair pass the rule? */
export function numbersClose(a: number, e: number, tol: number): boolean {
  if (Number.isSafeInteger(a) && Number.isSafeInteger(e)) return a === e;
  if (!Number.isFinite(a) || !Number.isFinite(e)) return false; // NaN/Inf are not representable in JSON
  return Math.abs(a - e) <= tol * Math.max(1, Math.abs(a) + Math.abs(e));
}

export interface Mismatch {
  /** path in the suite's style, e.g. "mu[3][1]" or "reproj_error.elements[0]" */
  path: string;
  actual: unknown;
  expected: unknown;
  /** |a-e| / max(1, |a|+|e|) for numeric mismatches */
  err?: number;
}

/**
 * All mismatches between `actual` and `expected` (up to `limit`), in document order.
 * An empty result means the values match under the rule above.
 */
export function compare(actual: unknown, expected: unknown, tol: number, limit = 10): Mismatch[] {
  const out: Mismatch[] = [];
  walk(actual, expected, '', tol, out, limit);
  return out;
}

function walk(a: unknown, e: unknown, path: string, tol: number, out: Mismatch[], limit: number): void {
  if (out.length >= limit) return;
  if (typeof e === 'number') {
    if (typeof a !== 'number') {
      out.push({ path: path || '(root)', actual: a, expected: e });
    } else if (!numbersClose(a, e, tol)) {
      out.push({ path: path || '(root)', actual: a, expected: e, err: Math.abs(a - e) / Math.max(1, Math.abs(a) + Math.abs(e)) });
    }
    return;
  }
  const ea = asArray(e);
  if (ea !== null) {
    const aa = asArray(a);
    if (aa === null || aa.length !== ea.length) {
      out.push({ path: path || '(root)', actual: aa === null ? typeof a : `length ${aa.length}`, expected: `length ${ea.length}` });
      return;
    }
    for (let i = 0; i < ea.length && out.length < limit; i++) walk(aa[i], ea[i], `${path}[${i}]`, tol, out, limit);
    return;
  }
  if (isRecord(e)) {
    if (!isRecord(a)) {
      out.push({ path: path || '(root)', actual: typeof a, expected: 'object' });
      return;
    }
    const ek = Object.keys(e).sort();
    const ak = Object.keys(a).sort();
    if (ek.join('\u0000') !== ak.join('\u0000')) {
      out.push({ path: path || '(root)', actual: `keys ${ak.join(',')}`, expected: `keys ${ek.join(',')}` });
      return;
    }
    for (const k of ek) {
      if (out.length >= limit) return;
      walk(a[k], e[k], path ? `${path}.${k}` : k, tol, out, limit);
    }
    return;
  }
  if (a !== e) out.push({ path: path || '(root)', actual: a, expected: e });
}

/** True when `actual` matches `expected` with the suite's rule at tolerance `rel`. */
export function closeTo(actual: unknown, expected: unknown, rel: number): boolean {
  return compare(actual, expected, rel, 1).length === 0;
}

/** Human-readable mismatch report in the eval's style ("Found N mismatches ..."), '' if none. */
export function describeMismatches(actual: unknown, expected: unknown, rel: number, limit = 10): string {
  const ms = compare(actual, expected, rel, limit);
  if (ms.length === 0) return '';
  const lines = ms.map((m) => `${m.path}: ${fmt(m.actual)} != ${fmt(m.expected)}${m.err !== undefined ? ` (err ${m.err.toExponential(2)})` : ''}`);
  return `Found ${ms.length}${ms.length >= limit ? '+' : ''} mismatches (tol ${rel}):\n${lines.join('\n')}`;
}

function fmt(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** Largest normalised error |a-e|/max(1,|a|+|e|) over all numbers (structure assumed equal); for reporting. */
export function maxNormalisedError(actual: unknown, expected: unknown): number {
  let worst = 0;
  const rec = (a: unknown, e: unknown): void => {
    if (typeof e === 'number' && typeof a === 'number') {
      worst = Math.max(worst, Math.abs(a - e) / Math.max(1, Math.abs(a) + Math.abs(e)));
      return;
    }
    const ea = asArray(e);
    const aa = asArray(a);
    if (ea !== null && aa !== null) {
      for (let i = 0; i < Math.min(ea.length, aa.length); i++) rec(aa[i], ea[i]);
      return;
    }
    if (isRecord(e) && isRecord(a)) for (const k of Object.keys(e)) rec(a[k], e[k]);
  };
  rec(actual, expected);
  return worst;
}
