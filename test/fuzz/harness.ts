// Random-program testing of tsad: runs every property on generated programs, batches the type check,
// shrinks failures with fast-check and saves them as regression files. Used by test/fuzz.test.ts
// (a fixed-seed run plus the saved regressions) and by test/fuzz/run.ts (`npm run fuzz`).
//
// Each program is compiled four times (JS for running, TS twice for determinism and `tsc --strict`,
// JS with `adjoint: { tbr: false }`), every compilation in a worker thread with a time budget; the
// numeric checks run in the same worker, also under a budget (generated code that loops forever is a
// failure). A job past its budget terminates the worker, which is restarted for the next job.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import type { CompileOptions, CompileResult } from '../../src/api/compile.js';
import { typecheckModules } from '../support/typecheck.js';
import { signature, type CheckJob, type CheckOutcome, type Finding, type Prop } from './checks.js';
import { HVP_REFUSAL } from './hvp-property.js';
import { mergeCounts, type Counts } from './coverage.js';
import { drawArguments, programArb, render, type ProgSpec, type Rendered } from './generator.js';
import type { WorkerJob, WorkerReply } from './worker.js';

const HERE = dirname(fileURLToPath(import.meta.url));

/**
 * The repository root: the nearest ancestor with tsad's package.json. This file also runs compiled, from
 * node_modules/.cache; there the root is looked for from the script as it was named first: Node
 * resolves symbolic links in import.meta.url, so in a git worktree whose node_modules links to another
 * clone's, HERE lies in that other clone, whose sources would be the ones bundled and tested.
 */
export const ROOT = (() => {
  const compiled = HERE.split(sep).includes('node_modules');
  const named = compiled && process.argv[1] ? dirname(resolve(process.argv[1])) : null;
  return (named && repositoryAbove(named)) ?? repositoryAbove(HERE) ?? fail('cannot find the tsad repository root');
})();

function repositoryAbove(start: string): string | null {
  for (let d = start; ; d = dirname(d)) {
    const p = join(d, 'package.json');
    if (existsSync(p) && JSON.parse(readFileSync(p, 'utf8')).name === 'tsad' && existsSync(join(d, 'src'))) return d;
    if (dirname(d) === d) return null;
  }
}

function fail(message: string): never {
  throw new Error(message);
}
export const REGRESSIONS = join(ROOT, 'test', 'fuzz', 'regressions');

// ------------------------------------------------------------------------------------------------
// The worker
// ------------------------------------------------------------------------------------------------

let bundleCount = 0;

/** Bundles test/fuzz/worker.ts (and the compiler sources it imports) into one ES module. */
async function bundleWorker(): Promise<string> {
  const { build } = await import('esbuild');
  const dir = join(ROOT, 'node_modules', '.cache', 'tsad-fuzz');
  mkdirSync(dir, { recursive: true });
  const outfile = join(dir, `worker-${process.pid}-${bundleCount++}.mjs`);
  await build({
    entryPoints: [join(ROOT, 'test', 'fuzz', 'worker.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['typescript'],
    outfile,
    logLevel: 'error',
  });
  return outfile;
}

export class FuzzWorker {
  private worker: Worker | null = null;
  private next = 0;
  restarts = 0;
  private constructor(private readonly file: string) {}

  static async create(): Promise<FuzzWorker> {
    return new FuzzWorker(await bundleWorker());
  }

  private spawn(): Worker {
    const w = new Worker(pathToFileURL(this.file));
    w.unref();
    return w;
  }

  /** Runs one job; resolves to its reply, or to an error reply if it exceeds `budgetMs` (the worker is then terminated). */
  run(req: WorkerJob, budgetMs: number): Promise<WorkerReply & { timeout?: boolean }> {
    const w = (this.worker ??= this.spawn());
    const id = this.next++;
    return new Promise((res) => {
      const t0 = performance.now();
      const done = (r: WorkerReply & { timeout?: boolean }) => {
        clearTimeout(timer);
        w.off('message', onMsg);
        w.off('error', onErr);
        res(r);
      };
      const onMsg = (m: WorkerReply) => m.id === id && done(m);
      const onErr = (e: Error) => {
        this.worker = null;
        done({ id, ok: false, error: `worker crashed: ${e.message}`, ms: performance.now() - t0 });
      };
      const timer = setTimeout(() => {
        this.worker = null;
        this.restarts++;
        void w.terminate();
        done({ id, ok: false, error: `exceeded the time budget of ${budgetMs} ms`, ms: performance.now() - t0, timeout: true });
      }, budgetMs);
      w.on('message', onMsg);
      w.on('error', onErr);
      w.postMessage({ ...req, id });
    });
  }

  /** Terminates the worker and deletes its bundle. */
  async close(): Promise<void> {
    await this.worker?.terminate();
    this.worker = null;
    rmSync(this.file, { force: true });
  }
}

// ------------------------------------------------------------------------------------------------
// One program
// ------------------------------------------------------------------------------------------------

export interface TestOptions {
  /** time budget of one compilation (ms) */
  compileBudget?: number;
  /** time budget of the numeric checks of one program (ms) */
  checkBudget?: number;
  /** check only what this property needs (shrinking) */
  only?: Prop;
  /** type-check this program's TypeScript output now (otherwise the caller batches it) */
  tscNow?: boolean;
  /** number of points tried when the tangent check is unstable */
  points?: number;
  /**
   * compile the program checked (JavaScript and TypeScript) with coarsening (issue 19); the naive, lean
   * and joint adjoints it is compared with stay statement-level, so the `tbr` property compares the
   * coarsened adjoint with statement-level AD (to rounding: closed forms reassociate)
   */
  coarsen?: boolean;
  /** also compile the program typed by JSDoc comments as a .js file (property jsdoc) */
  jsdoc?: boolean;
  /** also run the program as plain JavaScript through the runtime API (property plain-js) */
  plain?: boolean;
}

/** The programs of a campaign checked as JavaScript too, by their seed: one in eight typed by JSDoc, another one in eight plain through the runtime API. */
export const jsVariants = (seed: number): Pick<TestOptions, 'jsdoc' | 'plain'> => ({ jsdoc: (seed >>> 0) % 8 === 3, plain: (seed >>> 0) % 8 === 6 });

export interface ProgramResult {
  source: string;
  findings: Finding[];
  checks: Partial<Record<Prop, number>>;
  /** the TypeScript output, to be type-checked in a batch */
  tsCode?: string;
  nonfinite: number;
  unstable: number;
  /** with TestOptions.coarsen: something of the program was coarsened */
  coarsened?: boolean;
  /** with TestOptions.coarsen: a recorded loop is replayed from its closed form (src/transform/coarsen/replay.ts) */
  replayed?: boolean;
  /** with TestOptions.plain: the runtime API's refusal of the plain JavaScript */
  plainRefused?: string;
}

export interface Program {
  source: string;
  head: string;
  wrt?: string[];
}

const NEEDS: Record<Prop, { ts: boolean; naive: boolean; check: boolean }> = {
  compile: { ts: true, naive: true, check: false },
  accepts: { ts: false, naive: false, check: false },
  deterministic: { ts: true, naive: false, check: false },
  tsc: { ts: true, naive: false, check: false },
  primal: { ts: false, naive: true, check: true },
  'modes-primal': { ts: false, naive: true, check: true },
  tangent: { ts: false, naive: true, check: true },
  dot: { ts: false, naive: true, check: true },
  vector: { ts: false, naive: true, check: true },
  'sparse-vector': { ts: false, naive: true, check: true },
  tape: { ts: false, naive: true, check: true },
  tbr: { ts: false, naive: true, check: true },
  runtime: { ts: false, naive: true, check: true },
  checker: { ts: false, naive: true, check: true },
  selfcheck: { ts: false, naive: true, check: true },
  hvp: { ts: false, naive: true, check: true },
  sparse: { ts: false, naive: true, check: true },
  blocks: { ts: false, naive: true, check: true },
  jsdoc: { ts: false, naive: true, check: true },
  'plain-js': { ts: false, naive: true, check: true },
};

const firstLines = (s: string, n = 6) => s.split('\n').slice(0, n).join('\n');
/** a typecheckModules error without its file name: `line 12: message` */
const tscError = (e: string) => e.replace(/^\S*:(\d+) /, 'line $1: ').replace(/\s*\n\s*/g, ' ');

/** All properties of one program at the given points (tried in order until one gives a stable tangent check). */
export async function testProgram(p: Program, points: unknown[][], seed: number, worker: FuzzWorker, opts: TestOptions = {}): Promise<ProgramResult> {
  const out: ProgramResult = { source: p.source, findings: [], checks: {}, nonfinite: 0, unstable: 0 };
  const count = (q: Prop, n = 1) => (out.checks[q] = (out.checks[q] ?? 0) + n);
  const need = opts.only ? NEEDS[opts.only] : { ts: true, naive: true, check: true };
  const base: CompileOptions = { head: p.head, ...(p.wrt ? { wrt: p.wrt } : {}) };
  const budget = opts.compileBudget ?? 30_000;
  const compileOnce = async (options: CompileOptions, what: string): Promise<CompileResult | null> => {
    count('compile');
    const r = await worker.run({ type: 'compile', source: p.source, options }, budget);
    if (!r.ok) {
      // the message is the exception's first line; its stack goes to `observed`
      out.findings.push({ prop: 'compile', message: `compile() (${what}) ${r.timeout ? r.error : `threw ${r.error.split('\n')[0]}`}`, ...(r.timeout ? {} : { observed: firstLines(r.error, 8) }) });
      return null;
    }
    return r.value as CompileResult;
  };
  const coarse: Partial<CompileOptions> = opts.coarsen ? { coarsen: true } : {};
  const js = await compileOnce({ ...base, ...coarse, js: true, runtimeImport: null }, 'JavaScript');
  if (!js) return out;
  count('accepts');
  const errors = js.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length) {
    out.findings.push({ prop: 'accepts', message: `a program in the subset is rejected: ${errors.map((d) => `${d.line}:${d.col} ${d.message}`).join('; ')}` });
    return out;
  }
  if (need.ts) {
    const a = await compileOnce({ ...base, ...coarse, js: false, runtimeImport: 'tsad/runtime' }, 'TypeScript');
    const b = await compileOnce({ ...base, ...coarse, js: false, runtimeImport: 'tsad/runtime' }, 'TypeScript, again');
    if (a && b) {
      count('deterministic');
      if (a.code !== b.code) {
        const la = a.code.split('\n'), lb = b.code.split('\n');
        const i = la.findIndex((l, k) => l !== lb[k]);
        out.findings.push({ prop: 'deterministic', message: `compiling twice gives different output (first difference at line ${i + 1})`, observed: lb[i], expected: la[i] });
      }
      out.tsCode = a.code;
      if (opts.tscNow) {
        count('tsc');
        const errs = typecheckModules({ program: a.code });
        if (errs.length) out.findings.push({ prop: 'tsc', message: `generated TypeScript fails tsc --strict: ${errs.slice(0, 3).map(tscError).join('; ')}` });
      }
    }
  }
  if (!need.check && !need.naive) return out;
  const naive = await compileOnce({ ...base, js: true, runtimeImport: null, adjoint: { tbr: false, recompute: false, merge: false } }, 'JavaScript, tbr: false, recompute: false, merge: false');
  if (!naive || !need.check) return out;
  if (naive.diagnostics.some((d) => d.severity === 'error')) {
    out.findings.push({ prop: 'accepts', message: `rejected with adjoint: { tbr: false }: ${naive.diagnostics.map((d) => d.message).join('; ')}` });
    return out;
  }
  // every refinement on and the primal results dropped (diff-liveness at its strongest)
  const lean = await compileOnce({ ...base, js: true, runtimeImport: null, adjoint: { primalResults: false } }, 'JavaScript, primalResults: false');
  if (!lean) return out;
  if (lean.diagnostics.some((d) => d.severity === 'error')) {
    out.findings.push({ prop: 'accepts', message: `rejected with adjoint: { primalResults: false }: ${lean.diagnostics.map((d) => d.message).join('; ')}` });
    return out;
  }
  // joint mode: every call checkpointed
  const joint = await compileOnce({ ...base, js: true, runtimeImport: null, adjoint: { checkpointCalls: true } }, 'JavaScript, checkpointCalls: true');
  if (!joint) return out;
  if (joint.diagnostics.some((d) => d.severity === 'error')) {
    out.findings.push({ prop: 'accepts', message: `rejected with adjoint: { checkpointCalls: true }: ${joint.diagnostics.map((d) => d.message).join('; ')}` });
    return out;
  }
  // the sparse vector mode (src/transform/sparse-vector.ts), beside the scalar tangent it is checked against
  const sparseVec = await compileOnce({ ...base, js: true, runtimeImport: null, modes: ['tangent', 'vector'], sparseVector: true }, 'JavaScript, sparseVector: true');
  if (!sparseVec) return out;
  out.coarsened = !!js.coarsening?.chosen.length;
  out.replayed = /\breplayFailed\d* = true;/.test(js.code);
  const hvp = await secondDerivatives(p, js, worker, budget, opts.only);
  if (hvp && 'finding' in hvp) {
    out.findings.push(hvp.finding);
    return out;
  }
  const jsdoc = opts.jsdoc || opts.only === 'jsdoc' ? await jsdocVersion(p, base, worker, budget) : undefined;
  if (jsdoc && 'finding' in jsdoc) {
    out.findings.push(jsdoc.finding);
    return out;
  }
  const job: CheckJob = {
    source: p.source, head: p.head, points, seed, js, jsNaive: naive, jsLean: lean, jsJoint: joint, jsSparse: sparseVec, coarsened: out.coarsened,
    ...(hvp ? { hvp: hvp.result } : {}), ...(jsdoc?.result ? { jsdoc: jsdoc.result } : {}), plain: !!opts.plain || opts.only === 'plain-js',
  };
  const r = await worker.run({ type: 'check', job }, opts.checkBudget ?? 60_000);
  if (!r.ok) {
    count('runtime');
    out.findings.push({ prop: 'runtime', message: `the checks ${r.timeout ? r.error : `crashed: ${firstLines(r.error)}`}`, args: points[0] });
    return out;
  }
  const o = r.value as CheckOutcome;
  out.plainRefused = o.plainRefused;
  out.findings.push(...o.findings);
  for (const [k, n] of Object.entries(o.checks)) count(k as Prop, n);
  out.nonfinite = o.nonfinite;
  out.unstable = o.unstable;
  return out;
}

/**
 * The program typed by JSDoc comments, compiled as a .js file with the options `js` was compiled with:
 * undefined where it has no JSDoc spelling, a finding where the compilation throws, refuses it, or the
 * rewrite is not read as JSDoc-typed JavaScript.
 */
async function jsdocVersion(p: Program, base: CompileOptions, worker: FuzzWorker, budget: number): Promise<{ result: CompileResult } | { finding: Finding } | undefined> {
  const r = await worker.run({ type: 'jsdoc', source: p.source, options: { ...base, js: true, runtimeImport: null } }, budget);
  if (!r.ok) return { finding: { prop: 'jsdoc', message: `compile() of the JSDoc-typed version ${r.timeout ? r.error : `threw ${r.error.split('\n')[0]}`}` } };
  const v = r.value as { source: string | null; typed?: boolean; result?: CompileResult };
  if (v.source === null || !v.result) return undefined;
  if (!v.typed) return { finding: { prop: 'jsdoc', message: 'the JSDoc-typed version is not read as JSDoc-typed JavaScript (TypeScript syntax is left in it)' } };
  const errors = v.result.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length) return { finding: { prop: 'jsdoc', message: `the JSDoc-typed version is rejected: ${errors.map((d) => `${d.line}:${d.col} ${d.message}`).join('; ')}`, observed: v.source } };
  return { result: v.result };
}

/**
 * compileHvp of a head whose adjoint takes one number as its seed (a scalar result), with the first
 * compilation's independents; undefined where there is none or tsad says the gradient code cannot be
 * differentiated again (HVP_REFUSAL: a located refusal, not a bug), a finding where it throws or says
 * anything else.
 */
async function secondDerivatives(p: Program, js: CompileResult, worker: FuzzWorker, budget: number, only?: Prop): Promise<{ result: CompileResult } | { finding: Finding } | undefined> {
  if (only !== undefined && !['hvp', 'sparse', 'runtime'].includes(only)) return undefined;
  const eB = js.manifest.find((m) => m.of === p.head && m.mode === 'reverse');
  if (!js.wrt.length || eB?.params.find((q) => q.role === 'seed')?.type !== 'number' || !js.manifest.some((m) => m.of === p.head && m.mode === 'tangent')) return undefined;
  const r = await worker.run({ type: 'compileHvp', source: p.source, options: { head: p.head, wrt: js.wrt, js: true, runtimeImport: null } }, budget);
  if (!r.ok) return { finding: { prop: 'hvp', message: `compileHvp() ${r.timeout ? r.error : `threw ${r.error.split('\n')[0]}`}`, ...(r.timeout ? {} : { observed: firstLines(r.error, 8) }) } };
  const result = r.value as CompileResult;
  const errors = result.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length === 1 && HVP_REFUSAL.test(errors[0].message)) return undefined;
  if (errors.length || !result.code) return { finding: { prop: 'hvp', message: `compileHvp() fails: ${errors.map((d) => `${d.line}:${d.col} ${d.message}`).join('; ') || 'no code'}` } };
  return { result };
}

export const POINTS = 6;

/** A generated program: rendered, with its random points. */
export function programOf(spec: ProgSpec, npoints = POINTS): { program: Rendered; points: unknown[][] } {
  const program = render(spec);
  return { program, points: Array.from({ length: npoints }, (_, k) => drawArguments(program, spec.seed, k)) };
}

// ------------------------------------------------------------------------------------------------
// A campaign: many programs, one batched type check, shrinking, regression files
// ------------------------------------------------------------------------------------------------

export interface CampaignOptions {
  seed: number;
  count: number;
  /** shrink failures and write them under test/fuzz/regressions/ */
  save?: boolean;
  /** at most this many failures shrunk per signature (property + message) */
  shrinkPerProp?: number;
  /** shrink only failures of these properties (default: all) */
  shrinkProps?: Prop[];
  /** where shrunk failures are saved (default test/fuzz/regressions) */
  dir?: string;
  log?: (s: string) => void;
  progressEvery?: number;
  /** check the programs compiled with coarsening (TestOptions.coarsen) */
  coarsen?: boolean;
}

export interface Failure {
  index: number;
  prop: Prop;
  finding: Finding;
  source: string;
}

export interface Shrunk {
  prop: Prop;
  finding: Finding;
  program: Rendered;
  /** the point of the finding (or the program's first point) */
  args: unknown[];
  path: string;
  file?: string;
}

export interface CampaignReport {
  programs: number;
  checks: Partial<Record<Prop, number>>;
  totalChecks: number;
  failures: Failure[];
  shrunk: Shrunk[];
  nonfinite: number;
  unstable: number;
  restarts: number;
  ms: number;
  /** with CampaignOptions.coarsen: programs of which something was coarsened */
  coarsened: number;
  /** with CampaignOptions.coarsen: programs whose rules replay a recorded loop */
  replayed: number;
  /** coverage cells produced (test/fuzz/coverage.ts) */
  coverage: Counts;
  /** programs checked as JavaScript: typed by JSDoc (compiled), plain through the runtime API (checked, refused by it with the reasons) */
  js: { jsdoc: number; plain: number; refused: string[] };
}

export async function runCampaign(opts: CampaignOptions): Promise<CampaignReport> {
  const log = opts.log ?? (() => {});
  const t0 = performance.now();
  const worker = await FuzzWorker.create();
  const report: CampaignReport = { programs: 0, checks: {}, totalChecks: 0, failures: [], shrunk: [], nonfinite: 0, unstable: 0, restarts: 0, ms: 0, coarsened: 0, replayed: 0, coverage: new Map(), js: { jsdoc: 0, plain: 0, refused: [] } };
  const add = (c: Partial<Record<Prop, number>>) => {
    for (const [k, n] of Object.entries(c)) report.checks[k as Prop] = (report.checks[k as Prop] ?? 0) + n;
  };
  const tsModules: Record<string, string> = {};
  const sources: string[] = [];
  try {
    let index = 0;
    await fc.assert(
      fc.asyncProperty(programArb, async (spec) => {
        const i = index++;
        const { program, points } = programOf(spec);
        const r = await testProgram(program, points, spec.seed, worker, { coarsen: opts.coarsen, ...jsVariants(spec.seed) });
        const cells = await worker.run({ type: 'cells', source: program.source }, 30_000);
        if (cells.ok) mergeCounts(report.coverage, cells.value as [string, number][]);
        sources[i] = program.source;
        report.programs++;
        add(r.checks);
        report.nonfinite += r.nonfinite;
        report.unstable += r.unstable;
        if (r.coarsened) report.coarsened++;
        if (r.replayed) report.replayed++;
        if (r.tsCode) tsModules[`p${i}`] = r.tsCode;
        if (r.checks.jsdoc) report.js.jsdoc++;
        if (r.checks['plain-js']) report.js.plain++;
        if (r.plainRefused) report.js.refused.push(r.plainRefused);
        for (const f of r.findings) {
          report.failures.push({ index: i, prop: f.prop, finding: f, source: program.source });
          // seen at once (a long campaign shrinks only at its end): one line, and the program beside the regressions
          log(`  program #${i} [${f.prop}] ${f.message.split('\n')[0].slice(0, 200)}`);
          if (opts.dir) {
            mkdirSync(opts.dir, { recursive: true });
            writeFileSync(join(opts.dir, `found-${i}.ts`), program.source);
          }
        }
        if (opts.progressEvery && report.programs % opts.progressEvery === 0)
          log(`  ${report.programs} programs, ${report.failures.length} failures, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
        return true; // failures are collected, then shrunk one by one below
      }),
      { seed: opts.seed, numRuns: opts.count },
    );
    // one batched type check of every TypeScript output
    const names = Object.keys(tsModules);
    for (let k = 0; k < names.length; k += 500) {
      const chunk = Object.fromEntries(names.slice(k, k + 500).map((n) => [n, tsModules[n]]));
      const errs = typecheckModules(chunk);
      add({ tsc: Object.keys(chunk).length });
      const byModule = new Map<number, string[]>();
      for (const e of errs) {
        const m = /[\\/]p(\d+)\.ts:/.exec(e);
        const i = m ? Number(m[1]) : -1;
        byModule.set(i, [...(byModule.get(i) ?? []), tscError(e)]);
      }
      for (const [i, es] of byModule)
        report.failures.push({ index: i, prop: 'tsc', finding: { prop: 'tsc', message: `generated TypeScript fails tsc --strict: ${es.slice(0, 3).join('; ')}` }, source: sources[i] ?? '' });
    }
    // shrink
    if (opts.save && report.failures.length) {
      const perSig = new Map<string, number>();
      for (const f of report.failures) {
        // up to shrinkPerProp failures per signature (distinct bugs can share one, e.g. "dot-product test fails")
        const key = signature(f.finding);
        if (f.index < 0 || (perSig.get(key) ?? 0) >= (opts.shrinkPerProp ?? 3) || (opts.shrinkProps && !opts.shrinkProps.includes(f.prop))) continue;
        perSig.set(key, (perSig.get(key) ?? 0) + 1);
        log(`shrinking program #${f.index} (${f.prop}: ${f.finding.message.slice(0, 100)})`);
        const s = await shrinkFailure(opts.seed, f.index, f.finding, worker, log);
        if (!s) {
          log('  did not reproduce');
          continue;
        }
        if (report.shrunk.some((x) => x.program.source === s.program.source)) continue;
        s.file = saveRegression(s, opts.seed, opts.dir ?? REGRESSIONS);
        report.shrunk.push(s);
        log(`  saved ${s.file}`);
      }
    }
  } finally {
    report.restarts = worker.restarts;
    await worker.close();
  }
  report.totalChecks = Object.values(report.checks).reduce((a, b) => a + b, 0);
  report.ms = performance.now() - t0;
  return report;
}

/**
 * The coverage cells of the programs a campaign with this seed and count generates, without compiling
 * or checking them (the generator's census, fast enough to tune its weights by).
 */
export async function coverageCensus(seed: number, count: number): Promise<{ coverage: Counts; refused: number }> {
  const worker = await FuzzWorker.create();
  const coverage: Counts = new Map();
  let refused = 0;
  try {
    await fc.assert(
      fc.asyncProperty(programArb, async (spec) => {
        const cells = await worker.run({ type: 'cells', source: render(spec).source }, 30_000);
        if (cells.ok) mergeCounts(coverage, cells.value as [string, number][]);
        else refused++;
        return true;
      }),
      { seed, numRuns: count },
    );
  } finally {
    await worker.close();
  }
  return { coverage, refused };
}

/** Replays run `index` of the campaign with `seed` and lets fast-check shrink it for one property. */
export async function shrinkFailure(seed: number, index: number, target: Finding, worker: FuzzWorker, log: (s: string) => void = () => {}): Promise<Shrunk | null> {
  let last: { finding: Finding; program: Rendered } | null = null;
  let tries = 0;
  const prop = target.prop;
  const sig = signature(target);
  const r = await fc.check(
    fc.asyncProperty(programArb, async (spec) => {
      tries++;
      const { program, points } = programOf(spec);
      const res = await testProgram(program, points, spec.seed, worker, { only: prop, tscNow: prop === 'tsc' });
      const f = res.findings.find((x) => signature(x) === sig);
      if (f) last = { finding: f, program };
      return !f;
    }),
    { seed, path: String(index), numRuns: 1 },
  );
  log(`  ${tries} candidates tried`);
  if (!r.failed || !r.counterexample) return null;
  const { program, points } = programOf(r.counterexample[0]);
  // the finding of the counterexample itself (the last failing candidate is the shrunk one)
  const res = await testProgram(program, points, r.counterexample[0].seed, worker, { only: prop, tscNow: prop === 'tsc' });
  const f = res.findings.find((x) => signature(x) === sig) ?? last!.finding;
  return { prop, finding: f, program, args: f.args ?? points[0], path: r.counterexamplePath ?? String(index) };
}

// ------------------------------------------------------------------------------------------------
// Regression files
// ------------------------------------------------------------------------------------------------

export interface RegressionMeta {
  head: string;
  wrt?: string[];
  /** the point where the failure was observed (head arguments, in order) */
  args?: unknown[];
  prop: Prop;
  message: string;
  observed?: string;
  expected?: string;
  /** campaign seed and fast-check path of the shrunk counterexample */
  seed: number;
  path: string;
}

function saveRegression(s: Shrunk, seed: number, dir: string): string {
  mkdirSync(dir, { recursive: true });
  const hash = createHash('sha1').update(s.program.source).digest('hex').slice(0, 8);
  const name = `${s.prop}-${hash}`;
  const meta: RegressionMeta = {
    head: s.program.head,
    ...(s.program.wrt ? { wrt: s.program.wrt } : {}),
    args: s.args,
    prop: s.prop,
    message: s.finding.message,
    ...(s.finding.observed ? { observed: s.finding.observed } : {}),
    ...(s.finding.expected ? { expected: s.finding.expected } : {}),
    seed,
    path: s.path,
  };
  writeFileSync(join(dir, `${name}.ts`), `// Shrunk by the fuzzer (npm run fuzz): ${s.prop} — ${s.finding.message.split('\n')[0].slice(0, 200)}\n${s.program.source}`);
  writeFileSync(join(dir, `${name}.json`), JSON.stringify(meta, (_k, v) => (v instanceof Float64Array ? Array.from(v) : v), 2) + '\n');
  return relative(ROOT, join(dir, name));
}

export function listRegressions(): { name: string; source: string; meta: RegressionMeta }[] {
  if (!existsSync(REGRESSIONS)) return [];
  return readdirSync(REGRESSIONS)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const name = f.slice(0, -'.json'.length);
      return { name, source: readFileSync(join(REGRESSIONS, `${name}.ts`), 'utf8'), meta: JSON.parse(readFileSync(join(REGRESSIONS, f), 'utf8')) as RegressionMeta };
    });
}

/**
 * Every property of each saved regression, at its saved point; the TypeScript outputs are type-checked
 * in one batched program.
 */
export async function replayRegressions(regs: { name: string; source: string; meta: RegressionMeta }[], worker: FuzzWorker): Promise<Map<string, ProgramResult>> {
  const out = new Map<string, ProgramResult>();
  for (const reg of regs) {
    const points = reg.meta.args ? [reg.meta.args] : [];
    const program: Program = { source: reg.source, head: reg.meta.head, ...(reg.meta.wrt ? { wrt: reg.meta.wrt } : {}) };
    out.set(reg.name, await testProgram(program, points, reg.meta.seed, worker, { jsdoc: reg.meta.prop === 'jsdoc', plain: reg.meta.prop === 'plain-js' }));
  }
  const modules = Object.fromEntries([...out].filter(([, r]) => r.tsCode).map(([, r], i) => [`r${i}`, r.tsCode!]));
  const names = [...out].filter(([, r]) => r.tsCode).map(([n]) => n);
  const errs = Object.keys(modules).length ? typecheckModules(modules) : [];
  for (const [i, n] of names.entries()) {
    const r = out.get(n)!;
    r.checks.tsc = 1;
    const mine = errs.filter((e) => new RegExp(`[\\\\/]r${i}\\.ts:`).test(e)).map(tscError);
    if (mine.length) r.findings.push({ prop: 'tsc', message: `generated TypeScript fails tsc --strict: ${mine.slice(0, 3).join('; ')}` });
  }
  return out;
}

