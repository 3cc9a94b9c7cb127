// The GradBench tool's modules (src/cli/gradbench.ts, `tsad-gradbench`): for each of the twelve evals, every
// function the eval asks for (primal and derivative), split into the timed work (`run`) and the untimed
// result → JSON conversion (`toJson`), and the small inputs on which `define` compiles the derivatives.
// Shared by the tool and by bench/evals.ts, which times the same functions in-process. Not compiler input.
import type { EvalFn, EvalIO } from './common.js';
import { toRows } from './common.js';
import * as evals from './index.js';
import { jacobianCsr as baJacobianCsr, jacobianJson as baJacobianJson, derivatives as ba } from './ba/derivatives.js';
import { derivatives as det } from './det/derivatives.js';
import { derivatives as gmm } from './gmm/derivatives.js';
import { derivatives as hello } from './hello/derivatives.js';
import { jacobianFlat as htJacobianFlat, derivatives as ht } from './ht/derivatives.js';
import { derivatives as kmeans } from './kmeans/derivatives.js';
import { derivatives as llsq } from './llsq/derivatives.js';
import { derivatives as lse } from './lse/derivatives.js';
import { derivatives as lstm } from './lstm/derivatives.js';
import { derivatives as ode } from './ode/derivatives.js';
import { derivatives as particle } from './particle/derivatives.js';
import { derivatives as saddle } from './saddle/derivatives.js';

export interface Module {
  name: string;
  /** JSON input → prepared arguments */
  prepare: (input: unknown) => unknown;
  /** every function of the module (primal and derivative), split into timed work and untimed JSON conversion */
  fns: Record<string, EvalFn<unknown>>;
  /** names of the functions computed with tsad-generated code */
  derivatives: string[];
  /**
   * Small inputs on which every derivative function is run once at `define`, which makes the
   * derivatives module compile (and load) its tsad output. One input per code path that compiles
   * something different (ht: simple and complicated variant). Chosen so that the run itself is cheap
   * (particle, saddle: a start where the optimiser stops after one gradient).
   */
  warmup: unknown[];
}

/** Derivative as a whole: the function already returns the eval's JSON. */
function jsonFn<A>(f: (a: A) => unknown): EvalFn<A> {
  return { run: f, toJson: (r) => r };
}

function makeModule<A>(
  io: EvalIO<A>,
  derivs: Record<string, (a: A) => unknown>,
  warmup: unknown[],
  split: Record<string, EvalFn<A>> = {},
): Module {
  const fns: Record<string, EvalFn<A>> = { ...io.primal };
  for (const name of io.derivatives) {
    const f = split[name] ?? (derivs[name] !== undefined ? jsonFn(derivs[name]) : undefined);
    if (f === undefined) throw new Error(`tsad-gradbench: evals/${io.name}/derivatives.ts has no function ${name}`);
    fns[name] = f;
  }
  return {
    name: io.name,
    prepare: io.prepare,
    fns: fns as Record<string, EvalFn<unknown>>,
    derivatives: [...io.derivatives],
    warmup,
  };
}

function identity4(): number[][] {
  return [
    [1, 0, 0, 0],
    [0, 1, 0, 0],
    [0, 0, 1, 0],
    [0, 0, 0, 1],
  ];
}

/** A tiny hand model with the 22 bones the pose parameters address, 3 vertices and one triangle. */
function tinyHtInput(complicated: boolean): unknown {
  const bones = 22;
  const parents = Array.from({ length: bones }, (_, b) => b - 1);
  const weights = [0, 1, 2].map((v) => Array.from({ length: bones }, (_, b) => (b === 4 * v + 2 ? 0.7 : b === 0 ? 0.3 : 0)));
  const model = {
    bone_count: bones,
    parents,
    base_relatives: parents.map(() => identity4()),
    inverse_base_absolutes: parents.map(() => identity4()),
    base_positions: [
      [0.1, 0.2, 0.3, 1],
      [0.4, -0.1, 0.2, 1],
      [-0.2, 0.3, 0.5, 1],
    ],
    weights,
    triangles: [[0, 1, 2]],
    is_mirrored: false,
  };
  const theta = Array.from({ length: 26 }, (_, i) => 0.05 * ((i % 7) - 3));
  if (!complicated) {
    return { theta, data: { model, correspondences: [0, 2], points: [[0.1, 0.1, 0.1], [0.2, 0.3, 0.4]] }, us: [] };
  }
  return { theta, data: { model, correspondences: [0, 0], points: [[0.1, 0.1, 0.1], [0.2, 0.3, 0.4]] }, us: [[0.2, 0.3], [0.5, 0.1]] };
}

export const modules: Record<string, Module> = {
  hello: makeModule(evals.hello, hello, [1]),
  lse: makeModule(evals.lse, lse, [{ x: [0.5, -1, 2] }]),
  llsq: makeModule(evals.llsq, llsq, [{ x: [0.1, -0.2, 0.3], n: 5 }]),
  det: makeModule(evals.det, det, [{ ell: 3, A: [2, 0, 1, 1, 3, 0, 0, 1, 4] }]),
  ode: makeModule(evals.ode, ode, [{ x: [1, 2, 3], s: 2 }]),
  gmm: makeModule(evals.gmm, gmm, [
    {
      d: 2, k: 2, n: 3, m: 0, gamma: 1,
      x: [[0.1, 0.2], [-0.3, 0.4], [0.5, -0.6]],
      alpha: [0.1, -0.2], mu: [[0.1, 0.1], [-0.2, 0.3]], q: [[0.1, -0.1], [0.2, 0]], l: [[0.1], [-0.2]],
    },
  ]),
  kmeans: makeModule(evals.kmeans, kmeans, [{ centroids: [[0, 0], [1, 1]], points: [[0.1, 0.2], [0.9, 1.1], [0.5, 0.4]] }]),
  lstm: makeModule(evals.lstm, lstm, [
    {
      sequence: [[0, 1], [1, 0], [1, 1]],
      main_params: [
        [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
        [0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1],
      ],
      extra_params: [[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]],
      state: [[0.1, 0.2], [0.3, 0.4]],
    },
  ]),
  ba: makeModule(
    evals.ba,
    ba,
    [{ n: 2, m: 2, p: 3, cam: [0.1, 0.2, 0.3, 1, 2, 3, 500, 1, 2, 0.01, 0.001], x: [1, 2, 10], w: 0.5, feat: [100, 200] }],
    { jacobian: { run: (a) => baJacobianCsr(a), toJson: (r) => baJacobianJson(r as ReturnType<typeof baJacobianCsr>) } },
  ),
  ht: makeModule(evals.ht, ht, [tinyHtInput(false), tinyHtInput(true)], {
    jacobian: {
      run: (a) => htJacobianFlat(a),
      toJson: (r) => {
        const j = r as ReturnType<typeof htJacobianFlat>;
        return toRows(j.jac, j.rows, j.cols);
      },
    },
  }),
  // near the optimum |dJ/dw| <= 1, so the optimiser's first step is below its tolerance and it stops
  particle: makeModule(evals.particle, particle, [{ w: 0.2071918746486116 }]),
  // (0, 0) is the saddle point: both gradients vanish
  saddle: makeModule(evals.saddle, saddle, [{ start: [0, 0] }]),
};

// ---------------------------------------------------------------------------
// Compiling a module's derivatives (the tool's `define`)

export interface Timing {
  name: string;
  nanoseconds: number;
}

export function since(t0: bigint): number {
  return Number(process.hrtime.bigint() - t0);
}

export function message(err: unknown): string {
  if (err instanceof Error) return err.message === '' ? err.name : err.message;
  return String(err);
}

/** Modules whose derivatives have been compiled in this process. */
const compiled = new Set<string>();

/**
 * Runs every derivative of `m` once on each warm-up input (compiles the tsad output); timings per
 * function, none when the module was compiled before.
 */
export function compileModule(m: Module): Timing[] {
  if (compiled.has(m.name)) return [];
  const timings: Timing[] = [];
  const args = m.warmup.map((w) => m.prepare(w));
  for (const name of m.derivatives) {
    const t0 = process.hrtime.bigint();
    try {
      for (const a of args) m.fns[name].toJson(m.fns[name].run(a));
    } catch (err) {
      throw new Error(`${m.name}.${name}: tsad-generated derivative failed to compile or run: ${message(err)}`);
    }
    timings.push({ name: 'compile', nanoseconds: since(t0) });
  }
  compiled.add(m.name);
  return timings;
}
