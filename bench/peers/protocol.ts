// Messages between the peers orchestrator (run.ts) and one peer's child process (worker.ts).
import type { Errors } from './problems.js';

export const PEERS = ['tsad', 'hand-written', 'fd-central', 'tfjs-cpu', 'tfjs-wasm', 'jax-js'] as const;
export type PeerName = (typeof PEERS)[number];

/**
 * A timed function: "grad" = value + derivative, "primal" = value only, "grad-const" = value +
 * derivative with the parts that do not depend on the independents (llsq's power matrix) computed once
 * outside the timed call (libraries only; an extra row, not what the tables compare).
 */
export type VariantName = 'grad' | 'primal' | 'grad-const';

export type Request =
  | { id: number; type: 'init'; peer: PeerName; tfjsBundle: string }
  | { id: number; type: 'setup'; eval: string; key: string; fdBudgetMs: number }
  | { id: number; type: 'run'; variant: VariantName; reps: number }
  | { id: number; type: 'dispose' };

export interface InitReply {
  /** library versions, backend, dtype */
  info: Record<string, string>;
}

export interface SetupReply {
  variants: VariantName[];
  independents: number;
  errors: Errors;
  /** the first (cold) call of each variant, ms, made by the checks */
  firstCallMs: Partial<Record<VariantName, number>>;
  setupMs: number;
  /** time multiplier applied to 'grad' (finite differences over a subset of columns, extrapolated) */
  gradScale: number;
  notes: string[];
}

export interface RunReply {
  /** ms per call (mean over reps, times gradScale for 'grad') */
  ms: number;
  /** ms per call before gradScale */
  rawMs: number;
  checksum: number;
}

export type Reply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string };

/** What a peer implementation gives the worker for one workload. */
export interface PeerInstance {
  /** one call computing the value and the derivative (into JS memory); returns a number that depends on them */
  grad(): number;
  /** one call computing the value only */
  primal?(): number;
  /** value + derivative with the independent-free part precomputed (see VariantName) */
  gradConst?(): number;
  /** value and flat derivative, in the layout of problems.ts (columns: the compared subset, if not all) */
  check(): { value: number; grad: ArrayLike<number>; columns?: ArrayLike<number> };
  gradScale?: number;
  notes?: string[];
  dispose?(): void;
}

export interface PeerImpl {
  init(): Promise<Record<string, string>>;
  setup(p: import('./problems.js').Problem, opts: { fdBudgetMs: number }): PeerInstance | Promise<PeerInstance>;
}
