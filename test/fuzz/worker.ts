// The fuzz worker thread: compiles a program (`compile` jobs), runs the numeric checks on compiled
// code (`check` jobs) and classifies a program's lowered forms for the coverage table (`cells` jobs). The main thread bundles this file with esbuild (test/fuzz/harness.ts) and
// terminates the worker when a job exceeds its time budget: a compilation or a generated function that
// never returns is a failure, not a hung test run.
import { parentPort } from 'node:worker_threads';
import { compile, frontEnd, type CompileOptions } from '../../src/api/compile.js';
import { compileHvp, type HvpOptions } from '../../src/api/hessian.js';
import { runChecks, type CheckJob } from './checks.js';
import { classifyModule, classifySyntax } from './coverage.js';
import { jsdocOf } from './jsdoc.js';
import { isJsdocTyped } from '../../src/frontend/lower.js';

/** the JSDoc-typed version of a program and its compilation as `program.js` (what `tsad program.js` compiles) */
function compileJsdoc(source: string, options: CompileOptions): { source: string | null; typed?: boolean; result?: ReturnType<typeof compile> } {
  const js = jsdocOf(source);
  return js === null ? { source: null } : { source: js, typed: isJsdocTyped(js), result: compile({ 'program.js': js }, options) };
}

export type WorkerJob =
  | { type: 'compile'; source: string; options: CompileOptions }
  | { type: 'compileHvp'; source: string; options: HvpOptions }
  // the program rewritten with its types in JSDoc comments (test/fuzz/jsdoc.ts), compiled as the CLI compiles a .js file (null: no JSDoc spelling)
  | { type: 'jsdoc'; source: string; options: CompileOptions }
  | { type: 'check'; job: CheckJob }
  // the coverage cells of a program (test/fuzz/coverage.ts), as [key, count] pairs
  | { type: 'cells'; source: string };
export type WorkerRequest = WorkerJob & { id: number };

export type WorkerReply = { id: number; ok: true; value: unknown; ms: number } | { id: number; ok: false; error: string; ms: number };

parentPort!.on('message', (m: WorkerRequest) => {
  const t0 = performance.now();
  try {
    const value =
      m.type === 'compile' ? compile(m.source, m.options)
      : m.type === 'compileHvp' ? compileHvp(m.source, m.options)
      : m.type === 'jsdoc' ? compileJsdoc(m.source, m.options)
      : m.type === 'cells' ? [...classifyModule(frontEnd(m.source)), ...classifySyntax(m.source)]
      : runChecks(m.job);
    parentPort!.postMessage({ id: m.id, ok: true, value, ms: performance.now() - t0 } satisfies WorkerReply);
  } catch (e) {
    const error = e instanceof Error ? `${e.name}: ${e.message}\n${e.stack ?? ''}` : String(e);
    parentPort!.postMessage({ id: m.id, ok: false, error, ms: performance.now() - t0 } satisfies WorkerReply);
  }
});
