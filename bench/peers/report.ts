// Peers benchmark: text and Markdown tables from PeersResults, and the "Peers" section of
// BENCHMARKS.md (kept between marker comments so a re-run replaces only that section).
import { table } from '../harness.js';
import type { PeerName, VariantName } from './protocol.js';
import type { PeerResult, PeersResults, WorkloadResult } from './run.js';

export const BEGIN = '<!-- peers:begin (written by `npm run bench:peers`; edits inside are overwritten) -->';
export const END = '<!-- peers:end -->';

const LIB_PEERS: PeerName[] = ['tfjs-cpu', 'tfjs-wasm', 'jax-js'];

export function fmtMs(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '';
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 100) return `${ms.toFixed(0)} ms`;
  if (ms >= 10) return `${ms.toFixed(1)} ms`;
  if (ms >= 1) return `${ms.toFixed(2)} ms`;
  return `${(ms * 1000).toFixed(ms >= 0.1 ? 0 : 1)} µs`;
}

function ratio(x: number | undefined): string {
  if (x === undefined || !Number.isFinite(x)) return '';
  return x >= 100 ? `${x.toFixed(0)}×` : x >= 10 ? `${x.toFixed(1)}×` : `${x.toFixed(2)}×`;
}

export function peer(w: WorkloadResult, p: PeerName): PeerResult | undefined {
  return w.peers.find((x) => x.peer === p);
}

export function median(w: WorkloadResult, p: PeerName, v: VariantName = 'grad'): number | undefined {
  return peer(w, p)?.variants[v]?.stats.median;
}

export function minimum(w: WorkloadResult, p: PeerName, v: VariantName = 'grad'): number | undefined {
  return peer(w, p)?.variants[v]?.stats.min;
}

/** time of the primal each derivative is compared with: tsc's for tsad, hand-written and fd; the library's own otherwise */
export function primalOf(w: WorkloadResult, p: PeerName): number | undefined {
  return LIB_PEERS.includes(p) ? median(w, p, 'primal') : median(w, 'tsad', 'primal');
}

/** a time cell: median; ~ extrapolated (fd over a subset of columns), ¹ a single call; else the status */
function cell(w: WorkloadResult, p: PeerName, v: VariantName = 'grad'): string {
  const r = peer(w, p);
  if (!r) return '';
  const vr = r.variants[v];
  if (vr) {
    const extrap = v === 'grad' && (r.gradScale ?? 1) > 1 ? '~' : '';
    return `${extrap}${fmtMs(vr.stats.median)}${vr.single ? '¹' : ''}`;
  }
  if (r.status === 'ok') return v === 'grad' ? 'n/a' : '';
  return r.status === 'skipped' ? '–' : r.status;
}

/** the workloads grouped by eval (lse, llsq, gmm, kmeans), sizes in run order (smallest first) */
function byEval(r: PeersResults): WorkloadResult[] {
  const rank = (e: string) => ['lse', 'llsq', 'gmm', 'kmeans'].indexOf(e);
  return r.workloads.map((w, i) => ({ w, i })).sort((a, b) => rank(a.w.eval) - rank(b.w.eval) || a.i - b.i).map((x) => x.w);
}

const div = (a: number | undefined, b: number | undefined) => (a !== undefined && b !== undefined && b > 0 ? a / b : undefined);

function timeRows(r: PeersResults): string[][] {
  return byEval(r).map((w) => {
    const t = median(w, 'tsad'), tmin = minimum(w, 'tsad');
    const hw = div(t, median(w, 'hand-written')), hwMin = div(tmin, minimum(w, 'hand-written'));
    return [
      w.eval,
      w.label,
      w.independents ? String(w.independents) : '',
      cell(w, 'tsad'),
      cell(w, 'hand-written'),
      hw !== undefined ? `${ratio(hw)} (${ratio(hwMin)})` : '',
      cell(w, 'fd-central'),
      cell(w, 'tfjs-cpu'),
      cell(w, 'tfjs-wasm'),
      cell(w, 'jax-js'),
      ...LIB_PEERS.map((p) => ratio(div(median(w, p), t))),
    ];
  });
}

const TIME_HEAD = ['eval', 'size', 'n', 'tsad', 'hand-written', 'tsad / hw (min)', 'fd central', 'tfjs-cpu', 'tfjs-wasm', 'jax-js', 'tfjs-cpu / tsad', 'tfjs-wasm / tsad', 'jax-js / tsad'];

function primalRows(r: PeersResults): string[][] {
  return byEval(r)
    .filter((w) => w.status !== 'skipped')
    .map((w) => [
      w.eval,
      w.label,
      cell(w, 'tsad', 'primal'),
      cell(w, 'tfjs-cpu', 'primal'),
      cell(w, 'tfjs-wasm', 'primal'),
      cell(w, 'jax-js', 'primal'),
      ...(['tsad', 'hand-written', 'tfjs-cpu', 'tfjs-wasm', 'jax-js'] as PeerName[]).map((p) => ratio(div(median(w, p), primalOf(w, p)))),
    ]);
}

const PRIMAL_HEAD = ['eval', 'size', 'tsc', 'tfjs-cpu', 'tfjs-wasm', 'jax-js', 'tsad / tsc', 'hw / tsc', 'tfjs-cpu / own', 'tfjs-wasm / own', 'jax-js / own'];

function errRows(r: PeersResults): string[][] {
  return byEval(r)
    .filter((w) => w.status !== 'skipped')
    .map((w) => [
      w.eval,
      w.label,
      w.reference === 'golden' ? `golden ${w.golden}` : 'hand-written',
      ...(['tsad', 'hand-written', 'fd-central', 'tfjs-cpu', 'tfjs-wasm', 'jax-js'] as PeerName[]).map((p) => {
        const e = peer(w, p)?.errors;
        if (!e) return '';
        const part = e.compared < w.independents ? ` (${e.compared} cols)` : '';
        return `${e.gradRel.toExponential(0)}${part}`;
      }),
    ]);
}

/** llsq's extra rows: the libraries with the power matrix precomputed outside the timed call */
function constRows(r: PeersResults): string[][] {
  return byEval(r)
    .filter((w) => LIB_PEERS.some((p) => median(w, p, 'grad-const') !== undefined))
    .map((w) => {
      const t = median(w, 'tsad');
      return [
        w.eval,
        w.label,
        cell(w, 'tsad'),
        ...LIB_PEERS.map((p) => cell(w, p, 'grad-const')),
        ...LIB_PEERS.map((p) => ratio(div(median(w, p, 'grad-const'), t))),
      ];
    });
}

const CONST_HEAD = ['eval', 'size', 'tsad', 'tfjs-cpu', 'tfjs-wasm', 'jax-js', 'tfjs-cpu / tsad', 'tfjs-wasm / tsad', 'jax-js / tsad'];

const ERR_HEAD = ['eval', 'size', 'reference', 'tsad', 'hand-written', 'fd central', 'tfjs-cpu', 'tfjs-wasm', 'jax-js'];

function problems(r: PeersResults): string[] {
  const out: string[] = [];
  for (const [p, why] of Object.entries(r.unavailable)) out.push(`${p}: unavailable: ${why}`);
  for (const w of r.workloads) {
    if (w.status === 'skipped') out.push(`${w.eval} ${w.label}: not run: ${w.message}`);
    if (w.status === 'truncated') out.push(`${w.eval} ${w.label}: ${w.message}`);
    for (const p of w.peers) {
      if (p.status === 'error' || p.status === 'timeout' || p.status === 'too-slow') out.push(`${w.eval} ${w.label} ${p.peer}: ${p.status}: ${p.message}`);
      if (p.status === 'skipped') out.push(`${w.eval} ${w.label} ${p.peer}: not run (${p.message})`);
    }
  }
  return out;
}

interface TargetLine {
  text: string;
  met: boolean | null;
}

/** The targets: tsad ≤ 1.2× hand-written; ≥ 10× faster than TF.js (its faster backend); faster than jax-js. */
export function targets(r: PeersResults): TargetLine[] {
  const out: TargetLine[] = [];
  const ran = r.workloads.filter((w) => median(w, 'tsad') !== undefined);
  const evals = [...new Set(ran.map((w) => w.eval))];
  const range = (xs: number[]) => (xs.length ? `${ratio(Math.min(...xs))}–${ratio(Math.max(...xs))}` : 'n/a');
  for (const e of evals) {
    const ws = ran.filter((w) => w.eval === e);
    const hw = ws.map((w) => div(median(w, 'tsad'), median(w, 'hand-written'))).filter((x): x is number => x !== undefined);
    out.push({ text: `${e}: tsad / hand-written ${range(hw)} over ${hw.length} sizes (target ≤ 1.2×)`, met: hw.length ? hw.every((x) => x <= 1.2) : null });
    const tf = ws
      .map((w) => {
        const best = Math.min(...(['tfjs-cpu', 'tfjs-wasm'] as PeerName[]).map((p) => median(w, p) ?? Infinity));
        return Number.isFinite(best) ? div(best, median(w, 'tsad')) : undefined;
      })
      .filter((x): x is number => x !== undefined);
    out.push({ text: `${e}: faster TF.js backend / tsad ${range(tf)} (target ≥ 10×)`, met: tf.length ? tf.every((x) => x >= 10) : null });
    const jx = ws.map((w) => div(median(w, 'jax-js'), median(w, 'tsad'))).filter((x): x is number => x !== undefined);
    out.push({ text: `${e}: jax-js / tsad ${range(jx)} (target > 1×)`, met: jx.length ? jx.every((x) => x > 1) : null });
  }
  return out;
}

function header(r: PeersResults): string {
  const m = r.machine;
  return (
    `${r.mode === 'quick' ? 'Quick smoke run' : 'Run'} of ${r.dateCommand} (\`date\`). Machine: \`lscpu\` model name "${m.cpu}", ` +
    `${m.cores} cores (${m.threadsPerCore} thread per core), ${m.memoryGiB} GiB RAM, ${m.platform}, Node ${m.node} (V8 ${m.v8}). ` +
    `1-minute load average ${r.loadAverage.start.toFixed(1)} at the start, ${r.loadAverage.end.toFixed(1)} at the end. ` +
    `Total ${r.totalSeconds.toFixed(0)} s (time limit ${r.protocol.timeLimitS} s). ` +
    `tsad at commit ${r.tsad.commit}${r.tsad.dirty ? ' with uncommitted changes in src/ or evals/' : r.tsad.dirty === null ? '' : ' (clean src/, evals/)'}.`
  );
}

export function textReport(r: PeersResults): string {
  const out: string[] = [header(r), ''];
  out.push('derivative (value + derivative) per call, median; ratios of medians');
  out.push(table(TIME_HEAD, timeRows(r)));
  out.push('', 'primal per call, median; derivative / primal');
  out.push(table(PRIMAL_HEAD, primalRows(r)));
  const cr = constRows(r);
  if (cr.length) out.push('', 'llsq with the power matrix t_i^j precomputed outside the timed call (libraries only)', table(CONST_HEAD, cr));
  out.push('', 'derivative error max|g - g_ref| / max|g_ref|');
  out.push(table(ERR_HEAD, errRows(r)));
  out.push('', 'targets:');
  for (const t of targets(r)) out.push(`  ${t.met === null ? '-' : t.met ? 'met   ' : 'MISSED'} ${t.text}`);
  const pr = problems(r);
  if (pr.length) out.push('', 'not run / failed:', ...pr.map((x) => `  ${x}`));
  return out.join('\n');
}

/** A Markdown table: the first two columns left-aligned, the others right-aligned. */
export function mdTable(head: string[], rows: string[][]): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  return [`| ${head.map(esc).join(' | ')} |`, `|${head.map((_, i) => (i < 2 ? '---' : '---:')).join('|')}|`, ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`)].join('\n');
}

export function markdownSection(r: PeersResults, charts: string[]): string {
  const p = r.protocol;
  const info = Object.entries(r.peerInfo)
    .map(([k, v]) => `${k}: ${Object.values(v).join(', ')}`)
    .join('; ');
  const chartLinks = charts.map((c) => `[${c.split('/').pop()}](${c})`).join(' · ');
  const s: string[] = [
    BEGIN,
    '## Peers',
    '',
    '`npm run bench:peers` (code in `bench/peers/`, see its README for why each library is there) times the',
    'value and derivative of lse, llsq, gmm and kmeans with tsad\'s generated adjoint, the hand-written',
    'gradients of `evals/*/handwritten.ts`, central finite differences, TensorFlow.js (tfjs-core 4.22 with the',
    'cpu and the wasm backend, float32) and jax-js (Wasm device, float64, `jit(valueAndGrad(f))`; kmeans',
    '`jit(jvp(valueAndGrad(cost)))`). kmeans\' derivative is dir = G ⊘ diag(H), so every peer computes a',
    'gradient and a Hessian diagonal there. Each peer runs in its own child process, a fresh one per workload. Rounds interleave the',
    `peers (rotating order); ${p.warmups} warm-up rounds after a calibrating call and a warm calibrating batch, then ${p.runs} timed rounds (${p.runsCheap ?? p.runs} when every sample of the workload takes under ${3 * p.targetMs} ms); one`,
    `sample is as many calls as fill ${p.targetMs} ms; the table gives the median per call. Library inputs are`,
    'tensors/arrays created once; each timed library call includes reading the value and the derivative back',
    'into JS typed arrays. Finite differences cost 1 + 2n primal calls: above a budget of',
    `${p.fdBudgetMs} ms per call only an evenly spread subset of columns is timed and scaled to n (marked ~).`,
    `A function slower than ${p.maxCallMs / 1000} s per call is timed once (¹) and its peer skipped at larger`,
    'sizes of that eval. `bench/peers-results.json` has every sample, the minima, first-call times and errors.',
    '',
    header(r),
    '',
    `Libraries: ${info}.`,
    '',
    '### Value + derivative per call (median) and ratios of medians',
    '',
    mdTable(TIME_HEAD, timeRows(r)),
    '',
    '"tsad / hw" is tsad\'s time over the hand-written gradient\'s (ratio of the minima in parentheses);',
    '"X / tsad" is how many times slower X is than tsad.',
    '',
    '### Primal per call and derivative / primal',
    '',
    mdTable(PRIMAL_HEAD, primalRows(r)),
    '',
    'tsad, the hand-written gradient and finite differences are divided by the tsc-compiled primal;',
    'each library by its own primal (same formulation, value read back).',
    '',
    ...(constRows(r).length
      ? [
          '### llsq with the power matrix precomputed',
          '',
          'The rows above compute the n×m matrix of powers t_i^j inside each call, as tsad\'s and the',
          'hand-written code do (it depends on n only). With that matrix computed once outside the timed call',
          '(what a JAX user would get from constant folding) the libraries take:',
          '',
          mdTable(CONST_HEAD, constRows(r)),
          '',
        ]
      : []),
    '### Derivative error',
    '',
    'max |g − g_ref| / max |g_ref| against the golden output where the size has a golden file, else against',
    'the hand-written float64 gradient (for kmeans g is dir = G ⊘ H).',
    '',
    mdTable(ERR_HEAD, errRows(r)),
    '',
    '### Targets',
    '',
    ...targets(r).map((t) => `* ${t.met === null ? '(no data)' : t.met ? 'met' : '**missed**'}: ${t.text}`),
    '',
  ];
  const pr = problems(r);
  if (pr.length) s.push('### Not run or failed', '', ...pr.map((x) => `* ${x}`), '');
  if (charts.length) s.push('### Charts', '', chartLinks, '', ...charts.filter((c) => /time|ratio/.test(c)).map((c) => `![${c.split('/').pop()}](${c})`), '');
  s.push(END);
  return s.join('\n');
}

/** Replaces the Peers section (between the markers) or appends it; the rest of the file is unchanged. */
export function updateBenchmarksMd(md: string, section: string): string {
  const b = md.indexOf(BEGIN), e = md.indexOf(END);
  if (b >= 0 && e > b) return md.slice(0, b) + section + md.slice(e + END.length);
  return md.replace(/\s*$/, '\n\n') + section + '\n';
}
