// Coarsening (issue 19): the paper's applications (bench/workloads/coarsen-apps.ts) at three sizes each,
// their gradients (f_b) timed with coarsening, without it (statement-level AD) and with the ablation
// without φ-calculus (`coarsen: { noPhi: true }`), beside the tsc-compiled primal — all variants of one
// configuration interleaved in the same rounds, each sample the mean of enough calls to last ≈ 20 µs. Also the compile time of each, and the SOIs chosen.
//
//   npm run bench -- --coarsen-only        (this table alone)
import { compile, type CompileOptions, type CompileResult } from '../src/api/compile.js';
import { loadGenerated, type LoadedModule } from '../src/api/load.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../evals/paths.js';
import { cpuMs, maxErr, measureClocks, wallMs } from './harness.js';
import { zerosLike } from '../src/runtime/arrays.js';
import { bgdError, brachistochroneTime, logisticPotential, springEnergy } from './workloads/coarsen-apps.js';

type Fn = (...args: unknown[]) => unknown;

interface App {
  name: string;
  head: string;
  wrt: string[];
  primal: Fn;
  /** the arguments at a configuration */
  args: (size: number) => unknown[];
  sizes: number[];
  /** how the paper's configuration is counted */
  unit: string;
}

const rand = (seed: number) => {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
};

const APPS: App[] = [
  {
    name: 'BGDHyperOpt',
    head: 'bgdError',
    wrt: ['r'],
    primal: bgdError as Fn,
    unit: 'records',
    sizes: [200, 1000, 2000],
    args: (m) => {
      const r = rand(m);
      const x = Array.from({ length: m }, () => r() * 2 - 1);
      const y = x.map((v) => 1.5 * v + 0.1 * (r() - 0.5));
      return [-0.05, x, y, 100];
    },
  },
  {
    name: 'Brachistochrone',
    head: 'brachistochroneTime',
    wrt: ['y'],
    primal: brachistochroneTime as Fn,
    unit: 'points',
    sizes: [200, 400, 1000],
    args: (n) => [Array.from({ length: n }, (_, i) => 1 - Math.sqrt(i / (n - 1))), 1 / (n - 1), 9.81],
  },
  {
    name: 'HMC (logistic U)',
    head: 'logisticPotential',
    wrt: ['beta'],
    primal: logisticPotential as Fn,
    unit: 'records×dims',
    sizes: [100, 1000, 800],
    args: (n) => {
      const d = n === 100 ? 1 : n === 1000 ? 2 : 3;
      const r = rand(n + d);
      const X = Array.from({ length: n * d }, () => r() * 4 - 2);
      const y = Array.from({ length: n }, () => (r() < 0.5 ? 0 : 1));
      return [Array.from({ length: d }, () => r() - 0.5), X, y, d, 1000];
    },
  },
  {
    name: 'HookeanSpring',
    head: 'springEnergy',
    wrt: ['p'],
    primal: springEnergy as Fn,
    unit: 'vertices',
    sizes: [10, 20, 40],
    args: (n) => {
      const r = rand(n);
      const p = Array.from({ length: 2 * n }, (_, i) => (i % 2 === 0 ? i / 2 : 0) + 0.3 * (r() - 0.5));
      return [p, Array.from({ length: n - 1 }, () => 1), Array.from({ length: n - 2 }, () => 2), 3];
    },
  },
];

interface Compiled {
  r: CompileResult;
  mod: LoadedModule;
  ms: number;
}

const SOURCE = () => readFileSync(join(repoRoot, 'bench', 'workloads', 'coarsen-apps.ts'), 'utf8');

function build(src: string, head: string, wrt: string[], coarsen: CompileOptions['coarsen']): Compiled {
  const t0 = performance.now();
  const r = compile(src, { head, wrt, modes: ['reverse'], js: true, runtimeImport: null, coarsen });
  const ms = performance.now() - t0;
  if (r.diagnostics.length) throw new Error(`${head}: ${r.diagnostics.map((d) => d.message).join('; ')}`);
  return { r, mod: loadGenerated(r.code, r.runtimeNames), ms };
}

/**
 * The gradient as tsad's gradient entry points take it (`grad` compiled by the bundler plugin, and
 * `<head>_grad`): fresh zero adjoint arrays from the runtime's `zerosLike` on each call, then f_b with a
 * seed of 1; the returned adjoints and arrays summed. (Zeroing arrays kept from call to call costs less
 * with a loop, more with `fill(0)`: BENCHMARKS.md.) The argument list is
 * built once, as the primal's is (the same arrays each call): building it per call timed the harness's
 * own allocation with the gradient, not with the primal.
 */
function gradientCall(c: Compiled, head: string, args: unknown[]): () => number {
  const entry = c.r.manifest.find((m) => m.name === `${head}_b`)!;
  const f = c.mod[`${head}_b`];
  const names = entry.params.filter((p) => p.role === 'primal').map((p) => p.name);
  const byName = new Map(names.map((n, i) => [n, args[i]]));
  const call = entry.params.map((p) => (p.role === 'seed' ? 1 : p.role === 'adjoint' ? null : byName.get(p.name)));
  const slots = entry.params.flatMap((p, k) => (p.role === 'adjoint' ? [{ k, of: byName.get(p.of!) as number[] }] : []));
  return () => {
    for (const a of slots) call[a.k] = zerosLike(a.of);
    const out = f(...call);
    let s = typeof out === 'number' ? out : Array.isArray(out) ? (out as number[]).reduce((a, b) => a + b, 0) : 0;
    for (const a of slots) {
      const z = call[a.k] as number[];
      s += z[0] + z[z.length - 1];
    }
    return s;
  };
}

function gradientValue(c: Compiled, head: string, args: unknown[]): number[] {
  const entry = c.r.manifest.find((m) => m.name === `${head}_b`)!;
  const names = entry.params.filter((p) => p.role === 'primal').map((p) => p.name);
  const byName = new Map(names.map((n, i) => [n, args[i]]));
  const adjoints: number[][] = [];
  const call = entry.params.map((p) => {
    if (p.role === 'seed') return 1;
    if (p.role !== 'adjoint') return byName.get(p.name);
    const z = new Array<number>((byName.get(p.of!) as number[]).length).fill(0);
    adjoints.push(z);
    return z;
  });
  const out = c.mod[`${head}_b`](...call);
  return [...(typeof out === 'number' ? [out] : Array.isArray(out) ? (out as number[]) : []), ...adjoints.flat()];
}

/**
 * Calls per timed sample, so that the primal's sample lasts about 20 µs: a single call of the smaller
 * configurations (a fraction of a µs) is below the timer's resolution. The same for every variant.
 */
function repsFor(primal: () => number): number {
  // (past the JIT's tiers first, and the fastest of several batches: timed over the first few hundred
  // calls, a 40 ns primal compiled meanwhile looked like 60 µs, and a batch the scheduler interrupts on
  // a loaded machine looks as slow — either way one call per sample, timing the timer)
  for (let i = 0; i < 2000; i++) primal();
  let each = Infinity;
  for (let b = 0; b < 30; b++) {
    const t0 = performance.now();
    for (let i = 0; i < 100; i++) primal();
    each = Math.min(each, (performance.now() - t0) / 100);
  }
  return Math.max(1, Math.min(2000, Math.ceil(0.02 / Math.max(each, 1e-6))));
}

export interface CoarsenRow {
  app: string;
  size: number;
  unit: string;
  primal: number;
  statement: number;
  coarsened: number;
  noPhi: number;
  /** coarsened with the recorded loop run, not replayed (`coarsen: { replay: false }`); null where the rules record nothing */
  recorded: number | null;
  /** the same medians in this process's CPU time (user + system: other processes' load does not count) */
  cpu: { primal: number; statement: number; coarsened: number; noPhi: number; recorded: number | null };
  /** max relative difference of the coarsened gradient from the statement-level one */
  err: number;
  sois: string;
  compileMs: { statement: number; coarsened: number };
}

export function coarsenBench(quick: boolean, log: (s: string) => void): CoarsenRow[] {
  const src = SOURCE();
  const rows: CoarsenRow[] = [];
  for (const app of APPS) {
    const plain = build(src, app.head, app.wrt, false);
    const coarse = build(src, app.head, app.wrt, true);
    const noPhi = build(src, app.head, app.wrt, { noPhi: true });
    // (the rules before the replay: the loop whose trip count and exit only the run knows runs, recorded)
    const recorded = /replayFailed/.test(coarse.r.code) ? build(src, app.head, app.wrt, { replay: false }) : null;
    const sois = coarse.r.coarsening!.chosen.map((c) => `${c.soi} (${c.statements} st., ${c.phis} φ, ${c.size} nodes)`).join(', ') || 'none';
    for (const size of quick ? app.sizes.slice(0, 1) : app.sizes) {
      const args = app.args(size);
      const err = maxErr(gradientValue(coarse, app.head, args), gradientValue(plain, app.head, args));
      const primal = () => app.primal(...args) as number;
      const reps = repsFor(primal);
      const clocked = measureClocks(
        [
          { name: 'primal', run: primal, reps },
          { name: 'statement', run: gradientCall(plain, app.head, args), reps },
          { name: 'coarsened', run: gradientCall(coarse, app.head, args), reps },
          { name: 'noPhi', run: gradientCall(noPhi, app.head, args), reps },
          ...(recorded ? [{ name: 'recorded', run: gradientCall(recorded, app.head, args), reps }] : []),
        ],
        quick ? 20 : 200,
        quick ? 20 : 400,
        [wallMs, cpuMs],
      );
      const med = (k: string) => clocked.get(k)![0].median;
      const cpu = (k: string) => clocked.get(k)![1].median;
      rows.push({ app: app.name, size, unit: app.unit, primal: med('primal'), statement: med('statement'), coarsened: med('coarsened'), noPhi: med('noPhi'), recorded: recorded ? med('recorded') : null, cpu: { primal: cpu('primal'), statement: cpu('statement'), coarsened: cpu('coarsened'), noPhi: cpu('noPhi'), recorded: recorded ? cpu('recorded') : null }, err, sois, compileMs: { statement: plain.ms, coarsened: coarse.ms } });
      log(`coarsen: ${app.name} ${size}: primal ${med('primal').toFixed(4)} ms, f_b ${med('statement').toFixed(4)} / coarsened ${med('coarsened').toFixed(4)} / no-φ ${med('noPhi').toFixed(4)}${recorded ? ` / recorded run ${med('recorded').toFixed(4)}` : ''} ms`);
    }
  }
  return rows;
}

const f = (ms: number) => (ms < 0.001 ? `${(ms * 1e6).toFixed(0)} ns` : ms < 0.1 ? `${(ms * 1000).toFixed(1)} µs` : `${ms.toFixed(3)} ms`);

export function coarsenTable(rows: CoarsenRow[]): string {
  const out = [
    '| application | size | primal | gradient, statement-level | coarsened | no-φ ablation | speed-up (coarsened) | speed-up (no-φ) | coarsened / primal (wall; CPU) | speed-up, CPU time (coarsened; no-φ) | max rel. diff |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows)
    out.push(`| ${r.app} | ${r.size} ${r.unit} | ${f(r.primal)} | ${f(r.statement)} | ${f(r.coarsened)} | ${f(r.noPhi)} | ${(r.statement / r.coarsened).toFixed(2)}× | ${(r.statement / r.noPhi).toFixed(2)}× | ${(r.coarsened / r.primal).toFixed(2)}; ${(r.cpu.coarsened / r.cpu.primal).toFixed(2)} | ${(r.cpu.statement / r.cpu.coarsened).toFixed(2)}×; ${(r.cpu.statement / r.cpu.noPhi).toFixed(2)}× | ${r.err.toExponential(1)} |`);
  out.push('');
  for (const r of rows)
    if (r.recorded !== null)
      out.push(`- ${r.app} ${r.size} ${r.unit}: the recorded run instead of the replay (\`coarsen: { replay: false }\`, the rules before it) ${f(r.recorded)}: ${(r.statement / r.recorded).toFixed(2)}× statement-level, ${(r.recorded / r.primal).toFixed(2)} × the primal; coarsened ${(r.noPhi / r.coarsened).toFixed(2)}× faster than the no-φ ablation (CPU time: recorded run ${f(r.cpu.recorded!)}, ${(r.cpu.statement / r.cpu.recorded!).toFixed(2)}× statement-level; coarsened ${(r.cpu.noPhi / r.cpu.coarsened).toFixed(2)}× the no-φ ablation)`);
  out.push('');
  const seen = new Set<string>();
  for (const r of rows) {
    if (seen.has(r.app)) continue;
    seen.add(r.app);
    out.push(`- ${r.app}: SOIs ${r.sois}; compile ${r.compileMs.statement.toFixed(0)} ms statement-level, ${r.compileMs.coarsened.toFixed(0)} ms coarsened (first compile of the process excluded from neither)`);
  }
  return out.join('\n');
}
