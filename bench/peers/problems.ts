// Peers benchmark: the workloads (eval + size), their inputs, the reference value and gradient each
// peer is checked against, and the error measures. Shared by the orchestrator (run.ts) and the
// per-peer child processes (worker.ts). Not compiler input.
//
// Inputs: where a size has a golden file in evals/golden/<eval>/, its input is read from
// there and the golden outputs are the reference. Other sizes are drawn like the eval's inputs with the
// seeded generators of evals/random.ts, and the reference is the hand-written float64 gradient
// (evals/<eval>/handwritten.ts).
import { join } from 'node:path';
import { loadGoldenFile } from '../../evals/golden.js';
import { goldenDir } from '../../evals/paths.js';
import { normal, randomMatrix, randomVector, uniform } from '../../evals/random.js';
import { prepare as gmmPrepare, type GmmArgs } from '../../evals/gmm/io.js';
import { prepare as kmeansPrepare, type KmeansArgs } from '../../evals/kmeans/io.js';
import { prepare as llsqPrepare, type LlsqArgs } from '../../evals/llsq/io.js';
import { prepare as lsePrepare, type LseArgs } from '../../evals/lse/io.js';
import { gmmObjectiveGradient, makeGmmWorkspace } from '../../evals/gmm/handwritten.js';
import { kmeansDir, makeKmeansWorkspace } from '../../evals/kmeans/handwritten.js';
import { llsqGradient } from '../../evals/llsq/handwritten.js';
import { logsumexpGradient } from '../../evals/lse/handwritten.js';

export type EvalName = 'lse' | 'llsq' | 'gmm' | 'kmeans';
export const EVALS: EvalName[] = ['lse', 'llsq', 'gmm', 'kmeans'];

/** What "the derivative" is for each eval (all of them also return the primal value). */
export const DERIVATIVE: Record<EvalName, string> = {
  lse: 'gradient d lse/dx',
  llsq: 'gradient d llsq/dx',
  gmm: 'gradient d objective/d(alpha,mu,q,l)',
  kmeans: 'dir = G ⊘ diag(H) (gradient and Hessian diagonal)',
};

export interface SizeSpec {
  eval: EvalName;
  /** e.g. "n2500", "d10_k25_n1000" */
  key: string;
  /** e.g. "n=2500" */
  label: string;
  params: Record<string, number>;
  /** golden file stem in evals/golden/<eval>/ */
  golden?: string;
  /** included in --quick */
  quick: boolean;
}

const S = (ev: EvalName, key: string, label: string, params: Record<string, number>, quick: boolean, golden?: string): SizeSpec => ({
  eval: ev,
  key,
  label,
  params,
  quick,
  golden,
});

/**
 * The workload sizes, smallest first per eval. The first two of each eval are golden instances (the
 * first default workloads of the eval), the others are larger default-ish sizes from the eval's own
 * list (lse n up to 1.28M, llsq n up to 16392, gmm D·K up to 32·50, kmeans k·n·d up to 100·10000·16).
 */
export const SIZES: SizeSpec[] = [
  S('lse', 'n2500', 'n=2500', { n: 2500 }, true, 'n2500'),
  S('lse', 'n5000', 'n=5000', { n: 5000 }, true, 'n5000'),
  S('lse', 'n40000', 'n=40000', { n: 40000 }, false),
  S('lse', 'n320000', 'n=320000', { n: 320000 }, false),
  S('lse', 'n1280000', 'n=1280000', { n: 1280000 }, false),
  S('llsq', 'n16_m128', 'n=16 m=128', { n: 16, m: 128 }, true, 'n16_m128'),
  S('llsq', 'n1024_m128', 'n=1024 m=128', { n: 1024, m: 128 }, true, 'n1024_m128'),
  S('llsq', 'n4096_m128', 'n=4096 m=128', { n: 4096, m: 128 }, false),
  S('llsq', 'n16392_m128', 'n=16392 m=128', { n: 16392, m: 128 }, false),
  S('gmm', 'd2_k5_n1000', 'D=2 K=5 N=1000', { d: 2, k: 5, n: 1000 }, true, 'd2_k5_n1000'),
  S('gmm', 'd10_k25_n1000', 'D=10 K=25 N=1000', { d: 10, k: 25, n: 1000 }, true, 'd10_k25_n1000'),
  S('gmm', 'd20_k50_n1000', 'D=20 K=50 N=1000', { d: 20, k: 50, n: 1000 }, false),
  S('gmm', 'd32_k50_n1000', 'D=32 K=50 N=1000', { d: 32, k: 50, n: 1000 }, false),
  S('kmeans', 'k10_n1000_d8', 'k=10 n=1000 d=8', { k: 10, n: 1000, d: 8 }, true, 'k10_n1000_d8'),
  S('kmeans', 'k10_n1000_d16', 'k=10 n=1000 d=16', { k: 10, n: 1000, d: 16 }, true, 'k10_n1000_d16'),
  S('kmeans', 'k100_n1000_d16', 'k=100 n=1000 d=16', { k: 100, n: 1000, d: 16 }, false),
  S('kmeans', 'k1000_n1000_d8', 'k=1000 n=1000 d=8', { k: 1000, n: 1000, d: 8 }, false),
  S('kmeans', 'k100_n10000_d16', 'k=100 n=10000 d=16', { k: 100, n: 10000, d: 16 }, false),
];

export function findSize(ev: string, key: string): SizeSpec {
  const s = SIZES.find((z) => z.eval === ev && z.key === key);
  if (!s) throw new Error(`unknown workload ${ev}/${key}`);
  return s;
}

// ---------------------------------------------------------------------------
// Inputs

export type Args = { lse: LseArgs; llsq: LlsqArgs; gmm: GmmArgs; kmeans: KmeansArgs };

export interface Problem<E extends EvalName = EvalName> {
  spec: SizeSpec;
  args: Args[E];
  /** number of independents (length of the flat gradient) */
  independents: number;
  reference: { value: number; grad: Float64Array; source: 'golden' | 'hand-written' };
}

function goldenOf(s: SizeSpec) {
  return s.golden ? loadGoldenFile(join(goldenDir(s.eval), `${s.golden}.json`)) : undefined;
}

/** An input of the eval's distributions at the sizes `s.params` (seeded; see the header). */
export function generate(s: Pick<SizeSpec, 'eval' | 'params'>): Args[EvalName] {
  const p = s.params;
  switch (s.eval) {
    case 'lse':
      return { x: randomVector(p.n, uniform(31337 + p.n)) };
    case 'llsq':
      return { x: randomVector(p.m, uniform(31337 + p.n)), n: p.n };
    case 'gmm': {
      // the eval's distributions: x, alpha, q, l standard normal; mu uniform [0,1); m = 0, gamma = 1
      const nr = normal(31337 + p.d * 1000 + p.k), ur = uniform(31338 + p.d * 1000 + p.k);
      const x = randomMatrix(p.n, p.d, nr);
      const alpha = randomVector(p.k, nr);
      const mu = randomMatrix(p.k, p.d, ur);
      const q = randomMatrix(p.k, p.d, nr);
      const l = randomMatrix(p.k, (p.d * (p.d - 1)) / 2, nr);
      return { alpha, mu, q, l, x, m: 0, gamma: 1 };
    }
    case 'kmeans': {
      // points uniform [0,1)^d, centroids = the last k points (each centroid owns at least one point)
      const points = randomMatrix(p.n, p.d, uniform(31337 + p.k * 7 + p.n + p.d));
      return { points, centroids: points.slice(p.n - p.k).map((r) => r.slice()) };
    }
  }
}

/** Flat gradient layouts: gmm alpha, mu (row-major), q, l; kmeans dir row-major. */
export function flatten(v: unknown): Float64Array {
  const out: number[] = [];
  const walk = (x: unknown): void => {
    if (typeof x === 'number') out.push(x);
    else if (Array.isArray(x) || ArrayBuffer.isView(x)) for (const e of x as ArrayLike<unknown> & Iterable<unknown>) walk(e);
    else throw new Error('flatten: unsupported value');
  };
  walk(v);
  return Float64Array.from(out);
}

/** Value and flat derivative by the hand-written float64 code (evals/<eval>/handwritten.ts). */
export function handwrittenReference(ev: EvalName, a: Args[EvalName]): { value: number; grad: Float64Array } {
  switch (ev) {
    case 'lse': {
      const x = (a as LseArgs).x;
      const g = new Float64Array(x.length);
      return { value: logsumexpGradient(x, g), grad: g };
    }
    case 'llsq': {
      const b = a as LlsqArgs;
      const g = new Float64Array(b.x.length);
      return { value: llsqGradient(b.x, b.n, g), grad: g };
    }
    case 'gmm': {
      const b = a as GmmArgs;
      const ws = makeGmmWorkspace(b.x[0].length, b.alpha.length);
      const value = gmmObjectiveGradient(b.alpha, b.mu, b.q, b.l, b.x, b.m, b.gamma, ws);
      return { value, grad: flatten([ws.grad.alpha, ws.grad.mu, ws.grad.q, ws.grad.l]) };
    }
    case 'kmeans': {
      const b = a as KmeansArgs;
      const ws = makeKmeansWorkspace(b.centroids.length, b.points[0].length);
      const value = kmeansDir(b.centroids, b.points, ws);
      return { value, grad: Float64Array.from(ws.dir) };
    }
  }
}

export function makeProblem(s: SizeSpec): Problem {
  const g = goldenOf(s);
  let args: Args[EvalName];
  if (g) {
    const prep = { lse: lsePrepare, llsq: llsqPrepare, gmm: gmmPrepare, kmeans: kmeansPrepare }[s.eval];
    args = prep(g.input);
  } else {
    args = generate(s);
  }
  let reference: Problem['reference'];
  if (g) {
    const o = g.outputs;
    switch (s.eval) {
      case 'lse':
      case 'llsq':
        reference = { value: o['primal'] as number, grad: flatten(o['gradient']), source: 'golden' };
        break;
      case 'gmm': {
        const j = o['jacobian'] as Record<string, unknown>;
        reference = { value: o['objective'] as number, grad: flatten([j['alpha'], j['mu'], j['q'], j['l']]), source: 'golden' };
        break;
      }
      case 'kmeans':
        reference = { value: o['cost'] as number, grad: flatten(o['dir']), source: 'golden' };
        break;
    }
  } else {
    reference = { ...handwrittenReference(s.eval, args), source: 'hand-written' };
  }
  return { spec: s, args, independents: reference.grad.length, reference };
}

// ---------------------------------------------------------------------------
// Errors

export interface Errors {
  /** |v - v_ref| / max(1, |v| + |v_ref|) */
  value: number;
  /** largest |g - g_ref| / max(1, |g| + |g_ref|) over the compared components (the suite's rule) */
  gradSuite: number;
  /** max |g - g_ref| / max |g_ref| over the compared components (norm-wise relative, ∞-norm) */
  gradRel: number;
  /** components compared (finite differences above their size limit compare a subset of columns) */
  compared: number;
  reference: 'golden' | 'hand-written';
}

export function errors(p: Problem, value: number, grad: ArrayLike<number>, columns?: ArrayLike<number>): Errors {
  const ref = p.reference;
  const cols = columns ?? null;
  const m = cols ? cols.length : ref.grad.length;
  if (!cols && grad.length !== ref.grad.length) throw new Error(`gradient has ${grad.length} components, expected ${ref.grad.length}`);
  let suite = 0, diff = 0, scale = 0;
  for (let t = 0; t < m; t++) {
    const j = cols ? cols[t] : t;
    const a = grad[cols ? t : j], e = ref.grad[j];
    const d = Math.abs(a - e);
    if (!Number.isFinite(a)) {
      suite = diff = Infinity;
      continue;
    }
    suite = Math.max(suite, d / Math.max(1, Math.abs(a) + Math.abs(e)));
    diff = Math.max(diff, d);
    scale = Math.max(scale, Math.abs(e));
  }
  return {
    value: Number.isFinite(value) ? Math.abs(value - ref.value) / Math.max(1, Math.abs(value) + Math.abs(ref.value)) : Infinity,
    gradSuite: suite,
    gradRel: scale > 0 ? diff / scale : diff,
    compared: m,
    reference: ref.source,
  };
}
