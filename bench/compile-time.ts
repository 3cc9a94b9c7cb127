// Compile time (issue 21): how long tsad takes to differentiate a module, by pipeline stage and mode.
//
//   npm run bench -- --compile-only          this part alone
//   npm run bench -- --compile-only --quick  1k and 10k lines only
//
// Each size of the generated module (bench/synthetic.ts) compiles in its own child process, so the
// peak memory (max RSS) is that compile's: first all three modes together (the figure the issue's
// target reads), then each mode alone, then the same module again with one function's constant
// changed (a dev server after an edit: what the second compile reuses from the first). The corpus and the GMM eval
// source compile in one process, every case in all three modes.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile, forgetFrontEnds, type Mode } from '../src/api/compile.js';
import { loweredAloneLast } from '../src/api/incremental.js';
import { collectStages } from '../src/ir/timing.js';
import { forgetReusedDerivatives } from '../src/transform/reuse.js';
import { corpus } from '../test/corpus/index.js';
import { caseSources } from '../test/support/corpus.js';
import { repoRoot } from '../evals/paths.js';
import { syntheticModule } from './synthetic.js';

const ALL: Mode[] = ['tangent', 'vector', 'reverse'];

export interface CompileRun {
  label: string;
  lines: number;
  ms: number;
  stages: Record<string, number>;
}

export interface SizeResult {
  functions: number;
  lines: number;
  all: CompileRun;
  /** all modes again with nothing kept from earlier compiles, in the same process: the JIT warm (a dev server's or the playground's restart of a module) */
  allWarm: CompileRun;
  modes: CompileRun[];
  recompile: CompileRun;
  /** the function the recompile's front end checked and lowered alone (src/api/incremental.ts), or null: the whole file */
  recompileLoweredAlone: string | null;
  maxRssMiB: number;
}

function timedCompile(label: string, text: string, head: string, modes: Mode[]): CompileRun {
  const started = performance.now();
  const { result, stages } = collectStages(() => compile(text, { head, modes }));
  const ms = performance.now() - started;
  if (result.diagnostics.length) throw new Error(`${label}: ${result.diagnostics[0].message}`);
  return { label, lines: text.split('\n').length, ms, stages: Object.fromEntries(stages) };
}

/** the next compile is a cold one: nothing kept from earlier compiles */
function forgetAll(): void {
  forgetReusedDerivatives();
  forgetFrontEnds();
}

/** one size, in this process (the child's job) */
export function compileSize(functions: number): SizeResult {
  const { text, head } = syntheticModule(functions);
  const all = timedCompile('all modes', text, head, ALL);
  // (the front end's results, its parsed files and the derivatives kept for reuse are forgotten: the
  // later runs would take them)
  const modes = ALL.map((m) => {
    forgetAll();
    return timedCompile(m, text, head, [m]);
  });
  // the recompile follows a compile of the unedited module in all modes, as a dev server's would
  forgetAll();
  const allWarm = timedCompile('all modes, warm process', text, head, ALL);
  const changed = text.replace(/Math\.sin\(x\[j\] \* ([\d.]+)\)/, (_, c: string) => `Math.sin(x[j] * ${(Number(c) + 0.1).toFixed(1)})`);
  if (changed === text) throw new Error('the edit changed nothing');
  const recompile = timedCompile('recompile', changed, head, ALL);
  return { functions, lines: all.lines, all, allWarm, modes, recompile, recompileLoweredAlone: loweredAloneLast(), maxRssMiB: process.resourceUsage().maxRSS / 1024 };
}

/** every corpus case and the GMM objective, all modes each */
export function compileCorpus(root: string): CompileRun {
  const stages = new Map<string, number>();
  let ms = 0;
  let lines = 0;
  for (const c of corpus) {
    const files = caseSources(c.file, join(root, 'test', 'corpus', 'src'));
    const started = performance.now();
    const run = collectStages(() => compile(files, { head: c.head, modes: ALL }));
    ms += performance.now() - started;
    lines += Object.values(files).reduce((n, t) => n + t.split('\n').length, 0);
    for (const [k, v] of run.stages) stages.set(k, (stages.get(k) ?? 0) + v);
  }
  return { label: `corpus (${corpus.length} cases)`, lines, ms, stages: Object.fromEntries(stages) };
}

export function compileGmm(root: string): CompileRun {
  const text = readFileSync(join(root, 'evals', 'gmm', 'objective.ts'), 'utf8');
  timedCompile('warm-up', text, 'gmmObjective', ALL);
  forgetAll(); // (timed cold, as a first compile)
  return timedCompile('GMM eval source', text, 'gmmObjective', ALL);
}

const STAGE_ORDER = ['parse', 'check', 'lower', 'normalize', 'copy', 'activity', 'tangent', 'vector', 'reverse', 'tbr', 'merge', 'licm', 'print', 'other'];

function stageCells(r: CompileRun): string {
  return STAGE_ORDER.map((s) => (r.stages[s] ?? 0).toFixed(0)).join(' | ');
}

export function compileTimeTable(sizes: SizeResult[], corpusRun: CompileRun, gmm: CompileRun): string {
  const out: string[] = [];
  out.push('| module | lines | all modes (ms) | lines/s | all modes, warm process | tangent | vector | reverse | recompile after a one-function edit | max RSS |');
  out.push('|---|---|---|---|---|---|---|---|---|---|');
  for (const s of sizes) {
    const [t, v, r] = s.modes.map((m) => m.ms.toFixed(0));
    out.push(`| generated, ${s.functions} functions | ${s.lines} | ${s.all.ms.toFixed(0)} | ${Math.round(s.lines / (s.all.ms / 1000))} | ${s.allWarm.ms.toFixed(0)} | ${t} | ${v} | ${r} | ${s.recompile.ms.toFixed(0)} | ${s.maxRssMiB.toFixed(0)} MiB |`);
  }
  for (const r of [corpusRun, gmm]) out.push(`| ${r.label} | ${r.lines} | ${r.ms.toFixed(0)} | ${Math.round(r.lines / (r.ms / 1000))} | | | | | | |`);
  out.push('');
  out.push('Stages, in ms (the reverse, tangent and vector columns exclude the tbr, merge and licm inside them):');
  out.push('');
  out.push(`| run | ${STAGE_ORDER.join(' | ')} |`);
  out.push(`|---|${STAGE_ORDER.map(() => '---').join('|')}|`);
  for (const s of sizes) for (const r of [s.all, s.allWarm, s.recompile]) out.push(`| ${s.lines} lines, ${r.label} | ${stageCells(r)} |`);
  for (const r of [corpusRun, gmm]) out.push(`| ${r.label} | ${stageCells(r)} |`);
  return out.join('\n');
}

/** each size in a child process of this script (`--size N`), then the corpus and GMM here */
export function compileTimeBench(quick: boolean, log: (s: string) => void): { sizes: SizeResult[]; corpus: CompileRun; gmm: CompileRun } {
  const self = fileURLToPath(import.meta.url);
  const sizes: SizeResult[] = [];
  for (const n of quick ? [45, 455] : [45, 455, 4545]) {
    log(`compile time: ${n} generated functions`);
    const out = execFileSync(process.execPath, ['--max-old-space-size=16384', self, '--size', String(n)], { encoding: 'utf8', maxBuffer: 1 << 26 });
    sizes.push(JSON.parse(out) as SizeResult);
  }
  log('compile time: corpus and GMM');
  return { sizes, corpus: compileCorpus(repoRoot), gmm: compileGmm(repoRoot) };
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv.includes('--size')) {
  process.stdout.write(JSON.stringify(compileSize(Number(process.argv[process.argv.indexOf('--size') + 1]))));
}
