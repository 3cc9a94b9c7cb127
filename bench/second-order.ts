// Second derivatives (issue 18): the Hessian-vector product H·v against the gradient it differentiates,
// and a block of Hessian columns from the vector mode against one H·v per column, on GMM and the chained
// Rosenbrock function. Each pair is timed in the same interleaved rounds. Not compiler input.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileHvp } from '../src/api/hessian.js';
import { loadGenerated, type LoadedModule } from '../src/api/load.js';
import type { ManifestEntry } from '../src/api/compile.js';
import { packDirections, unpackDirection } from '../src/api/values.js';
import { zerosLike } from '../src/runtime/arrays.js';
import { repoRoot } from '../evals/paths.js';
import { fmtMs, maxErr, measure, randomShaped, type Stats, table } from './harness.js';

export interface SecondOrderResult {
  key: string;
  label: string;
  compileMs: number;
  timings: Record<string, Stats>;
  ratio: { name: string; of: string; median: number; min: number; target?: number };
  /** the largest relative error of H·v against central differences of the gradient along v */
  check: number;
}

interface Workload {
  key: string;
  label: string;
  files: string[];
  head: string;
  wrt: string[];
  /** the head's arguments by parameter name */
  values: Record<string, unknown>;
}

/** the generated gradient `<head>_grad`, its tangent `<head>_grad_d` and vector tangent `<head>_grad_dv` */
function compileSecondOrder(w: Workload): { mod: LoadedModule; tangent: ManifestEntry; vector: ManifestEntry; ms: number } {
  const src = Object.fromEntries(w.files.map((f) => [f, readFileSync(join(repoRoot, f), 'utf8')]));
  const t0 = performance.now();
  const r = compileHvp(src, { head: w.head, wrt: w.wrt, js: true, runtimeImport: null });
  if (r.diagnostics.length) throw new Error(`tsad failed on ${w.files[0]} (${w.head}): ${r.diagnostics.map((d) => d.message).join('; ')}`);
  const mod = loadGenerated(r.code);
  const ms = performance.now() - t0;
  const entry = (name: string) => r.manifest.find((m) => m.name === name) ?? (() => { throw new Error(`no ${name}`); })();
  return { mod, tangent: entry(`${w.head}_grad_d`), vector: entry(`${w.head}_grad_dv`), ms };
}

/** an argument list from a manifest entry: primals by name, tangents from `dirs` (zero for other active parameters) */
function argsOf(entry: ManifestEntry, values: Record<string, unknown>, dirs: Record<string, unknown>, nb?: number): unknown[] {
  return entry.params.map((p) => {
    if (p.role === 'primal') return values[p.name];
    if (p.role === 'directions') return nb;
    return dirs[p.of!] ?? (nb === undefined ? zerosLike(values[p.of!]) : zerosLike(values[p.of!], nb));
  });
}

function rand(seed: number): () => number {
  let s = seed;
  return () => ((s = (s * 16807) % 2147483647) / 2147483647) * 2 - 1;
}

/** H·v against the gradient, and a check of H·v against central differences of the gradient along v */
function hvpWorkload(w: Workload, warmups: number, runs: number, target: number, log: (s: string) => void): SecondOrderResult {
  const c = compileSecondOrder(w);
  const R = rand(7);
  const dirs = Object.fromEntries(w.wrt.map((n) => [n, randomShaped(w.values[n], R)]));
  const params = c.tangent.params.filter((p) => p.role === 'primal').map((p) => p.name);
  const primals = params.map((n) => w.values[n]);
  const grad = c.mod[`${w.head}_grad`] as (...a: unknown[]) => unknown;
  const hvp = c.mod[`${w.head}_grad_d`] as (...a: unknown[]) => [unknown, unknown];
  // central differences of the gradient along v
  const h = 1e-6;
  const shifted = (t: number) => params.map((n) => (dirs[n] === undefined ? w.values[n] : axpyShaped(w.values[n], t, dirs[n])));
  const gp = grad(...shifted(h)), gm = grad(...shifted(-h));
  const dd = axpyShaped(gp, -1, gm, 1 / (2 * h));
  const [, hv] = hvp(...argsOf(c.tangent, w.values, dirs));
  const check = maxErr(hv, dd);
  const T = Object.fromEntries(
    measure(
      [
        { name: 'gradient', run: () => first(grad(...primals)) },
        { name: 'hvp', run: () => first(hvp(...argsOf(c.tangent, w.values, dirs))[1]) },
      ],
      warmups,
      runs,
      (r) => log(`[${w.key}] round ${r + 1}/${warmups + runs}`),
    ),
  );
  return { key: w.key, label: w.label, compileMs: c.ms, timings: T, ratio: { name: 'hvp', of: 'gradient', median: T['hvp'].median / T['gradient'].median, min: T['hvp'].min / T['gradient'].min, target }, check };
}

/** n Hessian columns: one vector-mode sweep of `nb` directions against nb H·v, and the two compared */
function columnsWorkload(w: Workload, nb: number, warmups: number, runs: number, log: (s: string) => void): SecondOrderResult {
  const c = compileSecondOrder(w);
  const [name] = w.wrt;
  const x = w.values[name] as number[];
  const unit = (k: number) => x.map((_, i) => (i === k ? 1 : 0));
  const packed = packDirections(Array.from({ length: nb }, (_, k) => unit(k)), nb);
  const hvp = c.mod[`${w.head}_grad_d`] as (...a: unknown[]) => [unknown, unknown];
  const hvpAll = c.mod[`${w.head}_grad_dv`] as (...a: unknown[]) => [unknown, unknown];
  const columnsOneByOne = () => Array.from({ length: nb }, (_, k) => hvp(...argsOf(c.tangent, w.values, { [name]: unit(k) }))[1] as number[]);
  const columnsAtOnce = () => {
    const [g, v] = hvpAll(...argsOf(c.vector, w.values, { [name]: packed }, nb));
    return Array.from({ length: nb }, (_, k) => unpackDirection(v, g, k, nb) as number[]);
  };
  const check = maxErr(columnsAtOnce(), columnsOneByOne());
  const T = Object.fromEntries(
    measure(
      [
        { name: `${nb} × hvp`, run: () => columnsOneByOne()[0][0] },
        { name: `hvp of ${nb} directions`, run: () => columnsAtOnce()[0][0] },
      ],
      warmups,
      runs,
      (r) => log(`[${w.key}] round ${r + 1}/${warmups + runs}`),
    ),
  );
  const a = T[`hvp of ${nb} directions`], b = T[`${nb} × hvp`];
  return { key: w.key, label: w.label, compileMs: c.ms, timings: T, ratio: { name: `hvp of ${nb} directions`, of: `${nb} × hvp`, median: a.median / b.median, min: a.min / b.min }, check };
}

function first(v: unknown): number {
  while (typeof v !== 'number') v = (v as ArrayLike<unknown>)[0];
  return v;
}

/** a + t·b (scaled by s), elementwise over nested arrays */
function axpyShaped(a: unknown, t: number, b: unknown, s = 1): unknown {
  if (typeof a === 'number') return (a + t * (b as number)) * s;
  return (a as unknown[]).map((x, i) => axpyShaped(x, t, (b as unknown[])[i], s));
}

/** Issue 18's target: an HVP on GMM at most 2.5× the gradient. */
const HVP_TARGET = 2.5;

export function secondOrderBench(opts: { quick: boolean; gmm: Record<string, unknown>; log: (s: string) => void }): SecondOrderResult[] {
  const R = opts.quick ? { warmups: 1, runs: 3 } : { warmups: 3, runs: 10 };
  const rr = rand(11);
  const rosen = (n: number): Record<string, unknown> => ({ x: Array.from({ length: n }, () => 1 + 0.5 * rr()) });
  const gmm: Workload = { key: 'gmm_hvp', label: 'gmm d=10 K=25 N=1000', files: ['evals/gmm/objective.ts'], head: 'gmmObjective', wrt: ['alpha', 'mu', 'q', 'l'], values: opts.gmm };
  const chained = (n: number): Workload => ({ key: `rosenbrock_${n}`, label: `chained Rosenbrock n=${n}`, files: ['bench/workloads/rosenbrock.ts'], head: 'chainedRosenbrock', wrt: ['x'], values: rosen(n) });
  opts.log('second derivatives: gmm, chained Rosenbrock');
  return [
    hvpWorkload(gmm, R.warmups, R.runs, HVP_TARGET, opts.log),
    hvpWorkload(chained(opts.quick ? 1000 : 10_000), R.warmups, R.runs * 3, HVP_TARGET, opts.log),
    columnsWorkload(chained(64), 32, R.warmups, R.runs * 3, opts.log),
  ];
}

export function secondOrderTable(results: SecondOrderResult[]): string {
  const rows: string[][] = [];
  for (const r of results) {
    let firstRow = true;
    for (const [k, s] of Object.entries(r.timings)) {
      const q = k === r.ratio.name ? r.ratio : undefined;
      rows.push([
        firstRow ? r.label : '',
        k,
        fmtMs(s.median),
        fmtMs(s.min),
        q ? `${q.median.toPrecision(3)}×` : '',
        q ? `${q.min.toPrecision(3)}×` : '',
        q ? q.of : '',
        q?.target !== undefined ? `≤ ${q.target}×` : '',
        q?.target !== undefined ? (q.median <= q.target ? 'met' : 'MISSED') : '',
      ]);
      firstRow = false;
    }
  }
  const checks = results.map((r) => `checks ${r.label}: ${r.ratio.of === 'gradient' ? 'H·v vs differences of the gradient' : 'vector columns vs H·v one by one'} ${r.check.toExponential(1)}; compiled in ${fmtMs(r.compileMs)}`);
  return [table(['second derivatives', 'variant', 'median', 'min', 'ratio med', 'ratio min', 'of', 'target', ''], rows), ...checks].join('\n');
}
