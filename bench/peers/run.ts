// Peers benchmark: tsad's generated derivatives side by side with the hand-written gradients, central
// finite differences, TensorFlow.js (cpu and wasm backends) and jax-js, on the lse, llsq, gmm and
// kmeans evals at several sizes.
//
//   npm run bench:peers                      full run (about 8 minutes on 2 cores; global limit 9 min)
//   npm run bench:peers -- --quick           smoke run (< 60 s): the two golden sizes of each eval
//   node dist/bench/peers/run.js [--quick] [--time-limit=SECONDS] [--evals=lse,gmm] [--peers=tsad,jax-js]
//   node dist/bench/peers/run.js --from=bench/peers-results.json   only redo charts, tables and BENCHMARKS.md
//
// Every peer runs in its own child process (worker.ts), a fresh one for each workload, so a library's
// JIT, Wasm memory or GC pressure cannot slow another peer's plain JavaScript, and no JIT state of one
// workload carries over to the next. For each workload the children build the same
// inputs, check value and derivative against the reference (golden file, else the hand-written
// float64 gradient), then the orchestrator interleaves timing rounds across peers: one round runs each
// (peer, function) once in a rotating order, every other peer's process stopped (SIGSTOP) while one
// runs: on two cores an idle child's background threads (JIT, GC, a library's workers) would otherwise
// slow the peer being timed. A first call per
// function calibrates how many calls make one sample (at least targetMs), then warm-up rounds, then
// timed rounds; median and minimum per call. Per-request timeouts (a child that does not answer is
// killed and its peer skipped for the rest of that eval), a per-call limit (a function slower than
// maxCallMs keeps its one timed call and is not repeated; larger sizes of that eval are skipped for it)
// and a global time limit (workloads that would not fit are skipped and listed).
//
// Writes bench/peers-results.json (quick: bench/peers-results.quick.json), SVG charts into
// bench/charts/ (quick: bench/generated/peers/charts-quick/) and, in full mode, the "Peers" section of
// BENCHMARKS.md (between marker comments; the rest of the file is left as it is).
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { repoRoot } from '../../evals/paths.js';
import { stats, tsadCommit, type Stats } from '../harness.js';
import { writeCharts } from './charts.js';
import { DERIVATIVE, EVALS, SIZES, type EvalName, type Errors, type SizeSpec } from './problems.js';
import { PEERS, type InitReply, type PeerName, type Reply, type RunReply, type SetupReply, type VariantName } from './protocol.js';
import { markdownSection, textReport, updateBenchmarksMd } from './report.js';

const argv = process.argv.slice(2);
const QUICK = argv.includes('--quick');
const opt = (name: string): string | undefined => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const log = (s: string) => process.stderr.write(s + '\n');

export const PROTOCOL = QUICK
  ? { warmups: 1, runs: 3, runsCheap: 3, targetMs: 4, maxCallMs: 1500, fdBudgetMs: 40, setupTimeoutMs: 60_000, runTimeoutMs: 15_000, timeLimitS: 55 }
  : { warmups: 2, runs: 9, runsCheap: 21, targetMs: 20, maxCallMs: 4000, fdBudgetMs: 250, setupTimeoutMs: 180_000, runTimeoutMs: 60_000, timeLimitS: 540 };
const TIME_LIMIT_S = Number(opt('time-limit') ?? PROTOCOL.timeLimitS);
const ONLY_EVALS = opt('evals')?.split(',') as EvalName[] | undefined;
const ONLY_PEERS = opt('peers')?.split(',') as PeerName[] | undefined;

// ---------------------------------------------------------------------------
// Child processes

class Timeout extends Error {}

class Child {
  private proc: ChildProcess;
  private next = 0;
  private pending = new Map<number, { resolve: (r: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
  private tail = '';
  alive = true;

  constructor(readonly peer: PeerName) {
    const worker = join(dirname(fileURLToPath(import.meta.url)), 'worker.js');
    this.proc = fork(worker, [], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'], execArgv: ['--max-old-space-size=8192'] });
    const keep = (b: Buffer) => {
      this.tail = (this.tail + b.toString()).slice(-2000);
    };
    this.proc.stdout?.on('data', keep);
    this.proc.stderr?.on('data', keep);
    this.proc.on('message', (m: Reply) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      clearTimeout(p.timer);
      this.pending.delete(m.id);
      if (m.ok) p.resolve(m.result);
      else p.reject(new Error(m.error));
    });
    this.proc.on('exit', (code, signal) => {
      this.alive = false;
      for (const p of this.pending.values()) {
        clearTimeout(p.timer);
        p.reject(new Error(`${peer} child exited (${signal ?? code})${this.tail ? `: ${this.tail.trim().split('\n').slice(-3).join(' | ')}` : ''}`));
      }
      this.pending.clear();
    });
  }

  request<T>(msg: Record<string, unknown>, timeoutMs: number): Promise<T> {
    if (!this.alive) return Promise.reject(new Error(`${this.peer} child is not running`));
    const id = ++this.next;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        this.kill();
        reject(new Timeout(`${this.peer}: no answer within ${(timeoutMs / 1000).toFixed(0)} s to ${String(msg['type'])}`));
      }, timeoutMs);
      this.pending.set(id, { resolve: resolve as (r: unknown) => void, reject, timer });
      this.proc.send({ ...msg, id });
    });
  }

  kill(): void {
    this.resume();
    if (this.alive && this.proc.pid !== undefined) this.proc.kill('SIGKILL');
    this.alive = false;
  }

  private paused = false;

  /**
   * Stops the process (SIGSTOP) while another peer is timed: an idle child's background threads
   * (JIT compilation, garbage collection, a library's workers) would otherwise take one of the two
   * cores from the peer being measured.
   */
  pause(): void {
    if (this.alive && !this.paused && this.proc.pid !== undefined) {
      this.paused = true;
      this.proc.kill('SIGSTOP');
    }
  }

  resume(): void {
    if (this.paused && this.proc.pid !== undefined) {
      this.paused = false;
      this.proc.kill('SIGCONT');
    }
  }

  close(): void {
    this.resume();
    if (this.alive) this.proc.disconnect();
  }
}

// ---------------------------------------------------------------------------
// Results

export type PeerStatus = 'ok' | 'error' | 'timeout' | 'too-slow' | 'skipped' | 'unavailable';

export interface VariantResult {
  stats: Stats;
  /** calls per sample */
  reps: number;
  /** single timed call only (slower than maxCallMs) */
  single: boolean;
}

export interface PeerResult {
  peer: PeerName;
  status: PeerStatus;
  message?: string;
  variants: Partial<Record<VariantName, VariantResult>>;
  errors?: Errors;
  firstCallMs?: SetupReply['firstCallMs'];
  /** finite differences: time multiplier (extrapolation from a subset of columns); 1 otherwise */
  gradScale?: number;
  notes?: string[];
}

export interface WorkloadResult {
  eval: EvalName;
  key: string;
  label: string;
  derivative: string;
  independents: number;
  reference: 'golden' | 'hand-written' | '?';
  golden?: string;
  status: 'done' | 'truncated' | 'skipped';
  message?: string;
  peers: PeerResult[];
  seconds: number;
}

export interface PeersResults {
  date: string;
  dateCommand: string;
  mode: 'quick' | 'full';
  /** the tsad source measured: git commit, and whether src/ or evals/ had uncommitted changes */
  tsad: { commit: string; dirty: boolean | null };
  machine: { cpu: string; cores: number; threadsPerCore: string; memoryGiB: number; node: string; v8: string; platform: string };
  loadAverage: { start: number; end: number };
  protocol: typeof PROTOCOL & { timeLimitS: number };
  peerInfo: Partial<Record<PeerName, Record<string, string>>>;
  unavailable: Partial<Record<PeerName, string>>;
  workloads: WorkloadResult[];
  totalSeconds: number;
}

// ---------------------------------------------------------------------------

function lscpu(): { model: string; threadsPerCore: string } {
  try {
    const out = execFileSync('lscpu', { encoding: 'utf8' });
    const get = (k: string) => out.match(new RegExp(`^${k}:\\s*(.+)$`, 'm'))?.[1].trim();
    return { model: get('Model name') ?? os.cpus()[0]?.model.trim() ?? 'unknown', threadsPerCore: get('Thread\\(s\\) per core') ?? '?' };
  } catch {
    return { model: os.cpus()[0]?.model.trim() ?? 'unknown', threadsPerCore: '?' };
  }
}

function dateCommand(): string {
  try {
    return execFileSync('date', { encoding: 'utf8' }).trim();
  } catch {
    return new Date().toString();
  }
}

/** tfjs-core + its gradients + the cpu and wasm backends as one CommonJS file (see impl/tfjs.ts). */
async function bundleTfjs(): Promise<string> {
  const out = join(repoRoot, 'bench', 'generated', 'peers', 'tfjs.cjs');
  mkdirSync(dirname(out), { recursive: true });
  const { buildSync } = await import('esbuild');
  buildSync({
    stdin: {
      contents: [
        "export * from '@tensorflow/tfjs-core';",
        "import '@tensorflow/tfjs-core/dist/register_all_gradients';",
        "import '@tensorflow/tfjs-backend-cpu';",
        "export { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';",
      ].join('\n'),
      resolveDir: repoRoot,
      loader: 'js',
    },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    mainFields: ['module', 'main'],
    outfile: out,
    logLevel: 'error',
  });
  return out;
}

async function main(): Promise<void> {
  const from = opt('from');
  if (from) {
    await outputs(JSON.parse(readFileSync(from, 'utf8')) as PeersResults, false);
    return;
  }
  const started = performance.now();
  const elapsedS = () => (performance.now() - started) / 1000;
  const cpu = lscpu();
  const results: PeersResults = {
    date: new Date().toISOString(),
    dateCommand: dateCommand(),
    mode: QUICK ? 'quick' : 'full',
    tsad: tsadCommit(process.env['TSAD_PEERS_COMMIT']), // (TSAD_PEERS_COMMIT: for a run from an exported snapshot without .git)
    machine: {
      cpu: cpu.model,
      cores: os.cpus().length,
      threadsPerCore: cpu.threadsPerCore,
      memoryGiB: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
      v8: process.versions.v8,
      platform: `${os.platform()} ${os.arch()}`,
    },
    loadAverage: { start: os.loadavg()[0], end: NaN },
    protocol: { ...PROTOCOL, timeLimitS: TIME_LIMIT_S },
    peerInfo: {},
    unavailable: {},
    workloads: [],
    totalSeconds: 0,
  };
  log(`tsad peers benchmark${QUICK ? ' (--quick)' : ''}: time limit ${TIME_LIMIT_S} s`);

  let tfjsBundle = '';
  try {
    tfjsBundle = await bundleTfjs();
  } catch (e) {
    results.unavailable['tfjs-cpu'] = results.unavailable['tfjs-wasm'] = `bundling tfjs failed: ${(e as Error).message}`;
  }

  const peers = PEERS.filter((p) => !ONLY_PEERS || ONLY_PEERS.includes(p));
  const children = new Map<PeerName, Child>();
  /** a timed request: every other child is stopped while it runs */
  const timed = <T>(child: Child, msg: Record<string, unknown>): Promise<T> => {
    for (const c of children.values()) if (c !== child) c.pause();
    child.resume();
    return child.request<T>(msg, PROTOCOL.runTimeoutMs);
  };
  const resumeAll = () => {
    for (const c of children.values()) c.resume();
  };
  // (a stopped child must not outlive the run stopped)
  process.on('exit', () => {
    for (const c of children.values()) c.kill();
  });
  /** a child for the peer, started and initialised (null: the peer cannot run) */
  const childFor = async (peer: PeerName): Promise<Child | null> => {
    if (results.unavailable[peer]) return null;
    const c = children.get(peer);
    if (c?.alive) return c;
    const n = new Child(peer);
    children.set(peer, n);
    try {
      const r = await n.request<InitReply>({ type: 'init', peer, tfjsBundle }, PROTOCOL.setupTimeoutMs);
      results.peerInfo[peer] = r.info;
      return n;
    } catch (e) {
      n.kill();
      results.unavailable[peer] = (e as Error).message.split('\n')[0];
      log(`  ${peer} unavailable: ${results.unavailable[peer]}`);
      return null;
    }
  };

  // workloads in rounds over the evals (all smallest sizes first), so a time limit cuts large sizes
  const evals = EVALS.filter((e) => !ONLY_EVALS || ONLY_EVALS.includes(e));
  const perEval = evals.map((e) => SIZES.filter((s) => s.eval === e && (!QUICK || s.quick)));
  const order: SizeSpec[] = [];
  for (let i = 0; i < Math.max(...perEval.map((l) => l.length)); i++) for (const l of perEval) if (l[i]) order.push(l[i]);
  /** peers that stop for the rest of an eval (error, timeout, too slow), with the reason */
  const stopped = new Map<string, string>();
  /** estimated seconds of the previous size of each eval (a floor for the next one) */
  const lastCost = new Map<EvalName, number>();

  for (const spec of order) {
    const w0 = performance.now();
    const wl: WorkloadResult = {
      eval: spec.eval,
      key: spec.key,
      label: spec.label,
      derivative: DERIVATIVE[spec.eval],
      independents: 0,
      reference: spec.golden ? 'golden' : 'hand-written',
      golden: spec.golden,
      status: 'done',
      peers: [],
      seconds: 0,
    };
    results.workloads.push(wl);
    const remaining = TIME_LIMIT_S - elapsedS();
    if (remaining < (lastCost.get(spec.eval) ?? 0) * 1.5 || remaining < 3) {
      wl.status = 'skipped';
      wl.message = `global time limit (${TIME_LIMIT_S} s): ${remaining.toFixed(0)} s left, the previous ${spec.eval} size took ${(lastCost.get(spec.eval) ?? 0).toFixed(0)} s`;
      log(`[${spec.eval} ${spec.label}] skipped: ${wl.message}`);
      continue;
    }
    log(`[${spec.eval} ${spec.label}] setup (${elapsedS().toFixed(0)} s elapsed)`);

    // --- setup + checks, one peer after the other
    const active: { peer: PeerName; child: Child; pr: PeerResult; setup: SetupReply }[] = [];
    for (const peer of peers) {
      const pr: PeerResult = { peer, status: 'ok', variants: {} };
      wl.peers.push(pr);
      const stop = stopped.get(`${spec.eval}/${peer}`);
      if (stop) {
        pr.status = 'skipped';
        pr.message = stop;
        continue;
      }
      const child = await childFor(peer);
      if (!child) {
        pr.status = 'unavailable';
        pr.message = results.unavailable[peer];
        continue;
      }
      try {
        const setup = await child.request<SetupReply>({ type: 'setup', eval: spec.eval, key: spec.key, fdBudgetMs: PROTOCOL.fdBudgetMs }, PROTOCOL.setupTimeoutMs);
        wl.independents = setup.independents;
        pr.errors = setup.errors;
        pr.firstCallMs = setup.firstCallMs;
        pr.gradScale = setup.gradScale;
        pr.notes = setup.notes;
        active.push({ peer, child, pr, setup });
        log(`  ${peer}: checks ${fmtErr(setup.errors)}; first call ${setup.firstCallMs.grad?.toFixed(1)} ms${setup.notes.length ? ` (${setup.notes.join('; ')})` : ''}`);
      } catch (e) {
        pr.status = e instanceof Timeout ? 'timeout' : 'error';
        pr.message = (e as Error).message.split('\n')[0];
        stopped.set(`${spec.eval}/${peer}`, `${pr.status} at ${spec.label}`);
        log(`  ${peer}: ${pr.status}: ${pr.message}`);
      }
    }

    // --- calibration: one call, then a warm batch, to size the samples
    interface Slot {
      a: (typeof active)[number];
      variant: VariantName;
      reps: number;
      samples: number[];
      dead: boolean;
      /** estimated duration of one sample */
      sampleMs: number;
    }
    const slots: Slot[] = [];
    for (const a of active) {
      for (const variant of a.setup.variants) {
        try {
          const r = await timed<RunReply>(a.child, { type: 'run', variant, reps: 1 });
          // the real duration of one call decides (finite differences report an extrapolated time)
          if (r.rawMs > PROTOCOL.maxCallMs) {
            a.pr.variants[variant] = { stats: stats([r.ms]), reps: 1, single: true };
            if (variant === 'grad') {
              a.pr.status = 'too-slow';
              a.pr.message = `one call took ${(r.ms / 1000).toFixed(1)} s (> ${PROTOCOL.maxCallMs / 1000} s): timed once, not repeated`;
              stopped.set(`${spec.eval}/${a.peer}`, `too slow at ${spec.label}`);
            }
            log(`  ${a.peer} ${variant}: ${(r.ms / 1000).toFixed(2)} s per call, timed once`);
            continue;
          }
          // a first call is cold (not yet optimized): a batch sized by it runs warm and sizes the samples
          const repsFor = (ms: number) => Math.max(1, Math.min(100_000, Math.ceil(PROTOCOL.targetMs / Math.max(ms, 1e-4))));
          const warm = await timed<RunReply>(a.child, { type: 'run', variant, reps: repsFor(r.rawMs) });
          const reps = repsFor(Math.min(r.rawMs, warm.rawMs));
          slots.push({ a, variant, reps, samples: [], dead: false, sampleMs: reps * Math.min(r.rawMs, warm.rawMs) });
        } catch (e) {
          a.pr.status = e instanceof Timeout ? 'timeout' : 'error';
          a.pr.message = (e as Error).message.split('\n')[0];
          stopped.set(`${spec.eval}/${a.peer}`, `${a.pr.status} at ${spec.label}`);
          log(`  ${a.peer} ${variant}: ${a.pr.status}: ${a.pr.message}`);
        }
      }
    }
    // --- interleaved rounds
    // short workloads get more rounds: their medians are the ones a burst of load on the machine moves
    const cheap = slots.every((x) => x.sampleMs <= 3 * PROTOCOL.targetMs);
    const rounds = PROTOCOL.warmups + (cheap ? PROTOCOL.runsCheap : PROTOCOL.runs);
    for (let round = 0; round < rounds; round++) {
      const live = slots.filter((s) => !s.dead);
      if (live.length === 0) break;
      for (let j = 0; j < live.length; j++) {
        const s = live[(round + j) % live.length];
        if (s.dead) continue;
        try {
          const r = await timed<RunReply>(s.a.child, { type: 'run', variant: s.variant, reps: s.reps });
          if (round >= PROTOCOL.warmups) s.samples.push(r.ms);
        } catch (e) {
          s.dead = true;
          const pr = s.a.pr;
          pr.status = e instanceof Timeout ? 'timeout' : 'error';
          pr.message = (e as Error).message.split('\n')[0];
          stopped.set(`${spec.eval}/${s.a.peer}`, `${pr.status} at ${spec.label}`);
          for (const o of slots) if (o.a === s.a) o.dead = true;
          log(`  ${s.a.peer} ${s.variant}: ${pr.status}: ${pr.message}`);
        }
      }
      if (round >= PROTOCOL.warmups && elapsedS() > TIME_LIMIT_S && round < rounds - 1) {
        wl.status = 'truncated';
        wl.message = `global time limit reached after ${round + 1 - PROTOCOL.warmups} timed rounds`;
        log(`  ${wl.message}`);
        break;
      }
    }
    resumeAll();
    for (const s of slots) if (s.samples.length) s.a.pr.variants[s.variant] = { stats: stats(s.samples), reps: s.reps, single: false };
    // a fresh process per workload: code a JIT optimized for one eval or size must not run the next
    // one (measured: after gmm D=2 and the other evals in one process, V8 kept entering loop code
    // compiled without feedback for what follows the loop and left it again on every call, doubling
    // both tsad's gradient and the tsc primal at D=10)
    for (const c of children.values()) c.close();
    children.clear();
    wl.seconds = (performance.now() - w0) / 1000;
    lastCost.set(spec.eval, wl.seconds);
    const line = wl.peers
      .map((p) => `${p.peer} ${p.variants.grad ? fmt(p.variants.grad.stats.median) : p.status}`)
      .join(', ');
    log(`  ${wl.seconds.toFixed(1)} s: derivative median ${line}`);
  }
  for (const c of children.values()) c.close();

  results.loadAverage.end = os.loadavg()[0];
  results.totalSeconds = elapsedS();

  await outputs(results, true);
}

/** results JSON (if `writeJson`), charts, the text report on stdout and, in full mode, BENCHMARKS.md */
async function outputs(results: PeersResults, writeJson: boolean): Promise<void> {
  const quick = results.mode === 'quick';
  if (writeJson) {
    const jsonPath = join(repoRoot, 'bench', quick ? 'peers-results.quick.json' : 'peers-results.json');
    writeFileSync(jsonPath, JSON.stringify(results, null, 2) + '\n');
    log(`wrote ${jsonPath}`);
  }
  const chartDir = quick ? join(repoRoot, 'bench', 'generated', 'peers', 'charts-quick') : join(repoRoot, 'bench', 'charts');
  let charts: string[] = [];
  try {
    charts = await writeCharts(results, chartDir);
    log(`wrote ${charts.length} charts to ${chartDir}`);
  } catch (e) {
    log(`charts failed: ${(e as Error).stack ?? e}`);
  }
  console.log(textReport(results));
  if (!quick) {
    const md = join(repoRoot, 'BENCHMARKS.md');
    const rel = charts.map((c) => c.slice(repoRoot.length + 1));
    writeFileSync(md, updateBenchmarksMd(readFileSync(md, 'utf8'), markdownSection(results, rel)));
    log(`updated the Peers section of ${md}`);
  }
}

function fmt(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : ms >= 1 ? `${ms.toFixed(2)} ms` : `${(ms * 1000).toFixed(0)} µs`;
}

function fmtErr(e: Errors): string {
  return `value ${e.value.toExponential(1)}, derivative rel ${e.gradRel.toExponential(1)} vs ${e.reference} (${e.compared} components)`;
}

main().catch((e) => {
  log(String((e as Error).stack ?? e));
  process.exitCode = 1;
});
