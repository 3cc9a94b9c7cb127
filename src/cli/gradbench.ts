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
import { repoRoot } from '../../evals/paths.js';
import { compileModule, message, modules, since, type Timing } from '../../evals/tool.js';

// Anything printed with console.log by a library would corrupt the answer stream.
console.log = console.error;
console.info = console.error;
console.debug = console.error;

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
