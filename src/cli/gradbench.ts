#!/usr/bin/env node
// The `tsad-gradbench` command: a GradBench tool (the suite's protocol: https://github.com/gradbench/gradbench, CONTRIBUTING.md) for the twelve evals of
// evals/ (hello, lse, llsq, det, ode, gmm, kmeans, lstm, ba, ht, saddle, particle).
//
// Transport: one JSON request per line on stdin, one single-line JSON answer per request on stdout, in
// order, echoing the request's `id`. Nothing else is written to stdout (console.log is redirected to
// stderr); diagnostics go to stderr. The process exits with status 0 at end of input.
//
// Requests:
//   start    → {id, tool: "tsad", config}
//   define   → {id, success: true, timings: [{name: "compile", …} per derivative function]} after
//              compiling every derivative of the module with tsad (the evals/<eval>/derivatives.ts modules
//              compile at first use, so each derivative is run once on a tiny built-in input here; a
//              repeated define has no timings); {id, success: false, error} for an unknown module or a
//              compilation failure
//   evaluate → {id, success: true, output, timings} with one {"name": "evaluate"} timing per run, repeated
//              until at least min_runs runs and min_seconds seconds of summed run time; the JSON →
//              arguments conversion is timed once as "prepare" (and a module that was never defined is
//              compiled before the runs, timed as "compile"); the result → JSON conversion is not timed.
//              {id, success: false, error} for an unknown module/function, bad input or an exception.
//   analysis and any other kind → {id}
// A line that is not a JSON object is answered with {id: null, success: false, error} (one answer per
// line keeps the lock-step); blank lines are ignored.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { EvalFn, EvalIO } from '../../evals/common.js';
import { toRows } from '../../evals/common.js';
import * as evals from '../../evals/index.js';
import { repoRoot } from '../../evals/paths.js';
import { jacobianCsr as baJacobianCsr, jacobianJson as baJacobianJson, derivatives as ba } from '../../evals/ba/derivatives.js';
import { derivatives as det } from '../../evals/det/derivatives.js';
import { derivatives as gmm } from '../../evals/gmm/derivatives.js';
import { derivatives as hello } from '../../evals/hello/derivatives.js';
import { jacobianFlat as htJacobianFlat, derivatives as ht } from '../../evals/ht/derivatives.js';
import { derivatives as kmeans } from '../../evals/kmeans/derivatives.js';
import { derivatives as llsq } from '../../evals/llsq/derivatives.js';
import { derivatives as lse } from '../../evals/lse/derivatives.js';
import { derivatives as lstm } from '../../evals/lstm/derivatives.js';
import { derivatives as ode } from '../../evals/ode/derivatives.js';
import { derivatives as particle } from '../../evals/particle/derivatives.js';
import { derivatives as saddle } from '../../evals/saddle/derivatives.js';

// Anything printed with console.log by a library would corrupt the answer stream.
console.log = console.error;
console.info = console.error;
console.debug = console.error;

// ---------------------------------------------------------------------------
// Modules

interface Module {
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

const modules: Record<string, Module> = {
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
// Timing

interface Timing {
  name: string;
  nanoseconds: number;
}

function since(t0: bigint): number {
  return Number(process.hrtime.bigint() - t0);
}

function message(err: unknown): string {
  if (err instanceof Error) return err.message === '' ? err.name : err.message;
  return String(err);
}

/** Modules whose derivatives have been compiled in this process. */
const compiled = new Set<string>();

/**
 * Runs every derivative of `m` once on each warm-up input (compiles the tsad output); timings per
 * function, none when the module was compiled before.
 */
function compileModule(m: Module): Timing[] {
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

// ---------------------------------------------------------------------------
// Requests

type Answer = Record<string, unknown>;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function packageVersion(): string {
  try {
    const pkg: unknown = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
    return isRecord(pkg) && typeof pkg['version'] === 'string' ? pkg['version'] : 'unknown';
  } catch {
    return 'unknown';
  }
}

function start(id: unknown): Answer {
  return {
    id,
    tool: 'tsad',
    config: {
      version: packageVersion(),
      node: process.version,
      modules: Object.keys(modules),
      derivatives: 'tsad-generated (compiled at define)',
    },
  };
}

function define(id: unknown, req: Record<string, unknown>): Answer {
  const name = req['module'];
  if (typeof name !== 'string') return { id, success: false, error: 'define: "module" must be a string' };
  const m = Object.hasOwn(modules, name) ? modules[name] : undefined;
  if (m === undefined) return { id, success: false, error: `module ${name} is not implemented` };
  try {
    const timings = compileModule(m);
    return timings.length > 0 ? { id, success: true, timings } : { id, success: true };
  } catch (err) {
    return { id, success: false, error: message(err) };
  }
}

/** min_runs / min_seconds of an evaluate input (absent, e.g. for hello: one run). */
function repetitions(input: unknown): { minRuns: number; minSeconds: number } {
  let minRuns = 1;
  let minSeconds = 0;
  if (isRecord(input)) {
    const r = input['min_runs'];
    const s = input['min_seconds'];
    if (r !== undefined) {
      if (typeof r !== 'number' || !Number.isFinite(r)) throw new Error('min_runs must be a number');
      minRuns = Math.max(1, Math.ceil(r));
    }
    if (s !== undefined) {
      if (typeof s !== 'number' || !Number.isFinite(s)) throw new Error('min_seconds must be a number');
      minSeconds = Math.max(0, s);
    }
  }
  return { minRuns, minSeconds };
}

function evaluate(id: unknown, req: Record<string, unknown>): Answer {
  const name = req['module'];
  const fnName = req['function'];
  if (typeof name !== 'string') return { id, success: false, error: 'evaluate: "module" must be a string' };
  if (typeof fnName !== 'string') return { id, success: false, error: 'evaluate: "function" must be a string' };
  const m = Object.hasOwn(modules, name) ? modules[name] : undefined;
  if (m === undefined) return { id, success: false, error: `module ${name} is not implemented` };
  const f = Object.hasOwn(m.fns, fnName) ? m.fns[fnName] : undefined;
  if (f === undefined) {
    return { id, success: false, error: `module ${name} has no function ${fnName} (has: ${Object.keys(m.fns).join(', ')})` };
  }
  if (!('input' in req)) return { id, success: false, error: 'evaluate: missing "input"' };
  try {
    const timings: Timing[] = [];
    const input = req['input'];
    const { minRuns, minSeconds } = repetitions(input);
    const t0 = process.hrtime.bigint();
    const args = m.prepare(input);
    timings.push({ name: 'prepare', nanoseconds: since(t0) });
    // a module evaluated without a define: compile now, outside the timed runs
    timings.push(...compileModule(m));
    const minNs = minSeconds * 1e9;
    let count = 0;
    let total = 0;
    let out: unknown;
    do {
      const a = process.hrtime.bigint();
      out = f.run(args);
      const ns = Number(process.hrtime.bigint() - a);
      timings.push({ name: 'evaluate', nanoseconds: ns });
      count++;
      total += ns;
    } while (count < minRuns || total < minNs);
    const output = f.toJson(out);
    if (output === undefined) throw new Error(`${name}.${fnName} produced no output`);
    return { id, success: true, output, timings };
  } catch (err) {
    return { id, success: false, error: message(err) };
  }
}

function analysis(id: unknown, req: Record<string, unknown>): Answer {
  if (req['valid'] === false) {
    process.stderr.write(`tsad-gradbench: answer ${JSON.stringify(req['of'])} judged invalid${typeof req['error'] === 'string' ? `: ${req['error']}` : ''}\n`);
  }
  return { id };
}

/** The answer to one input line (null for a blank line). */
function handle(line: string): Answer | null {
  if (line.trim() === '') return null;
  let req: unknown;
  try {
    req = JSON.parse(line);
  } catch (err) {
    return { id: null, success: false, error: `malformed request (not JSON): ${message(err)}` };
  }
  if (!isRecord(req)) return { id: null, success: false, error: 'malformed request: not a JSON object' };
  const id = req['id'] ?? null;
  const kind = req['kind'];
  if (typeof kind !== 'string') return { id, success: false, error: 'malformed request: "kind" must be a string' };
  switch (kind) {
    case 'start':
      return start(id);
    case 'define':
      return define(id, req);
    case 'evaluate':
      return evaluate(id, req);
    case 'analysis':
      return analysis(id, req);
    default:
      return { id };
  }
}

function serialise(answer: Answer): string {
  try {
    return JSON.stringify(answer);
  } catch (err) {
    return JSON.stringify({ id: answer['id'] ?? null, success: false, error: `could not serialise the answer: ${message(err)}` });
  }
}

// ---------------------------------------------------------------------------
// Main loop: strict lock-step, requests handled synchronously in arrival order.

process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  // the reader went away: nothing more can be answered
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
rl.on('line', (line) => {
  let answer: Answer | null;
  try {
    answer = handle(line);
  } catch (err) {
    answer = { id: null, success: false, error: `internal error: ${message(err)}` };
  }
  if (answer !== null) process.stdout.write(`${serialise(answer)}\n`);
});
