// The built GradBench tool (dist/src/cli/gradbench.js, `tsad-gradbench`) driven over stdin/stdout in
// strict lock-step, as the suite's runner does (GradBench's protocol):
//   * per eval, a full session: start, define, evaluate every function on golden inputs (with the
//     eval's extra fields min_runs / min_seconds), an analysis after every successful evaluate, EOF;
//     every answer checked for its exact shape, the echoed id, the output against the golden output
//     (suite rule at 1e-8), and the timings (integers written without decimal point/exponent, positive,
//     one "evaluate" per run, the repetition rule met and not exceeded);
//   * min_seconds honoured; a multi-megabyte input line; a last line without newline;
//   * malformed lines, unknown kinds, an unknown module / function, bad inputs, evaluate without define.
// particle and saddle use their fastest instance with min_runs 1 (the rr variants take seconds).

import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeMismatches, loadGoldenFile, type GoldenFile } from '../evals/golden.js';
import { goldenDir } from '../evals/paths.js';
import { newestMtime } from './support/build.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BUILT = join(ROOT, 'dist/src/cli/gradbench.js');
const TOL = 1e-8;

/** The tool under test: dist/src/cli/gradbench.js, or a private build of it (see ensureBuilt). */
let TOOL = BUILT;
let privateBuild: string | null = null;

/**
 * Uses dist/src/cli/gradbench.js when it is newer than every file under src/ and evals/. Otherwise builds
 * a private copy (tsc --outDir into a fresh directory under node_modules/.cache, inside the repository so
 * that evals/paths.ts finds the repo root): other test files (test/cli.test.ts) and other people may
 * rebuild dist/ at the same time, and a tool started while dist/ is half rewritten fails to load.
 */
function ensureBuilt(): void {
  const sources = Math.max(newestMtime(join(ROOT, 'src')), newestMtime(join(ROOT, 'evals')));
  if (existsSync(BUILT) && statSync(BUILT).mtimeMs >= sources) return;
  const cache = join(ROOT, 'node_modules/.cache');
  mkdirSync(cache, { recursive: true });
  privateBuild = mkdtempSync(join(cache, 'tsad-gradbench-test-'));
  const r = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json', '--outDir', privateBuild, '--declaration', 'false'],
    { cwd: ROOT, encoding: 'utf8' },
  );
  TOOL = join(privateBuild, 'src/cli/gradbench.js');
  // tsc emits even with type errors elsewhere (the sources may be mid-edit); errors in the tool are fatal
  const own = r.stdout.split('\n').filter((l) => l.includes('src/cli/gradbench.ts'));
  if (!existsSync(TOOL) || own.length > 0) throw new Error(`build failed:\n${r.stdout}\n${r.stderr}`);
}

// ---------------------------------------------------------------------------
// A lock-step session with the tool

type Json = Record<string, unknown>;

interface Answer {
  /** the raw stdout line */
  line: string;
  json: Json;
}

class Session {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly lines: string[] = [];
  private waiting: ((line: string | null) => void) | null = null;
  private closed = false;
  private stderr = '';
  private readonly exited: Promise<number | null>;
  private nextId = 0;

  constructor() {
    this.child = spawn(process.execPath, [TOOL], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (d: string) => (this.stderr += d));
    const rl = createInterface({ input: this.child.stdout, crlfDelay: Infinity });
    rl.on('line', (l) => {
      if (this.waiting !== null) {
        const w = this.waiting;
        this.waiting = null;
        w(l);
      } else this.lines.push(l);
    });
    rl.on('close', () => {
      this.closed = true;
      if (this.waiting !== null) this.waiting(null);
    });
    this.exited = new Promise((res) => this.child.on('close', (code) => res(code)));
  }

  /** A fresh request id (0, 1, 2, … as the evals number them). */
  id(): number {
    return this.nextId++;
  }

  private nextLine(timeoutMs: number): Promise<string | null> {
    const queued = this.lines.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (this.closed) return Promise.resolve(null);
    return new Promise((res, rej) => {
      const timer = setTimeout(() => {
        this.waiting = null;
        rej(new Error(`no answer within ${timeoutMs} ms; stderr:\n${this.stderr}`));
      }, timeoutMs);
      this.waiting = (l) => {
        clearTimeout(timer);
        res(l);
      };
    });
  }

  /** Sends one raw line (a newline is appended unless `newline` is false) and waits for one answer line. */
  async sendRaw(text: string, timeoutMs = 30_000, newline = true): Promise<Answer> {
    this.child.stdin.write(newline ? `${text}\n` : text);
    if (!newline) this.child.stdin.end();
    const line = await this.nextLine(timeoutMs);
    if (line === null) throw new Error(`the tool closed its stdout (crashed?); stderr:\n${this.stderr}`);
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      throw new Error(`answer is not JSON: ${line.slice(0, 200)}`);
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new Error(`answer is not a JSON object: ${line.slice(0, 200)}`);
    return { line, json: json as Json };
  }

  send(req: Json, timeoutMs?: number): Promise<Answer> {
    return this.sendRaw(JSON.stringify(req), timeoutMs);
  }

  /** Closes stdin (end of the session) and returns the exit status and any unsolicited stdout lines. */
  async end(): Promise<{ code: number | null; extra: string[]; stderr: string }> {
    if (!this.child.stdin.writableEnded) this.child.stdin.end();
    const code = await this.exited;
    // let readline deliver what is left
    await new Promise((r) => setImmediate(r));
    return { code, extra: [...this.lines], stderr: this.stderr };
  }

  /** Writes raw text to the tool's stdin without waiting for an answer. */
  write(text: string): void {
    this.child.stdin.write(text);
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill();
  }
}

// ---------------------------------------------------------------------------
// Answer checks

function expectKeys(a: Answer, allowed: string[], required: string[]): void {
  const keys = Object.keys(a.json);
  for (const k of keys) expect(allowed, `unexpected field ${k} in ${a.line.slice(0, 200)}`).toContain(k);
  for (const k of required) expect(keys, `missing field ${k} in ${a.line.slice(0, 200)}`).toContain(k);
}

interface Timing {
  name: string;
  nanoseconds: number;
}

/** Timing entries: well-formed, positive, integers written as plain digits in the raw line. */
function checkTimings(a: Answer): Timing[] {
  const t = a.json['timings'];
  expect(Array.isArray(t)).toBe(true);
  const timings = t as Timing[];
  for (const e of timings) {
    expect(Object.keys(e).sort()).toEqual(['name', 'nanoseconds']);
    expect(typeof e.name).toBe('string');
    expect(Number.isSafeInteger(e.nanoseconds)).toBe(true);
    expect(e.nanoseconds).toBeGreaterThan(0);
  }
  // the runner reads nanoseconds as an unsigned integer: no '.', no exponent, no sign
  const raw = [...a.line.matchAll(/"nanoseconds":([^,}]*)/g)].map((m) => m[1]);
  expect(raw.length).toBe(timings.length);
  for (const r of raw) expect(r).toMatch(/^\d+$/);
  return timings;
}

/** The repetition rule: >= min_runs runs and >= min_seconds in total, and the last run was needed. */
function checkRepetitions(timings: Timing[], minRuns: number, minSeconds: number): void {
  const runs = timings.filter((t) => t.name === 'evaluate').map((t) => t.nanoseconds);
  expect(runs.length).toBeGreaterThanOrEqual(Math.max(1, minRuns));
  const total = runs.reduce((s, x) => s + x, 0);
  expect(total).toBeGreaterThanOrEqual(minSeconds * 1e9);
  const beforeLast = total - runs[runs.length - 1];
  expect(runs.length - 1 < minRuns || beforeLast < minSeconds * 1e9, 'ran more often than needed').toBe(true);
}

async function start(s: Session, evalName?: string): Promise<void> {
  const id = s.id();
  const a = await s.send({ id, kind: 'start', ...(evalName === undefined ? {} : { eval: evalName, config: { min_runs: 1, min_seconds: 0 } }) });
  expectKeys(a, ['id', 'tool', 'config'], ['id']);
  expect(a.json['id']).toBe(id);
  expect(a.json['tool']).toBe('tsad');
}

async function define(s: Session, module: string): Promise<Timing[]> {
  const id = s.id();
  const a = await s.send({ id, kind: 'define', module }, 60_000);
  expectKeys(a, ['id', 'success', 'timings'], ['id', 'success']);
  expect(a.json['id']).toBe(id);
  expect(a.json['success'], a.line).toBe(true);
  return 'timings' in a.json ? checkTimings(a) : [];
}

async function analysis(s: Session, of: number, valid: boolean, error?: string): Promise<void> {
  const id = s.id();
  const a = await s.send({ id, kind: 'analysis', of, valid, ...(error === undefined ? {} : { error }) });
  expect(a.json).toEqual({ id });
}

interface Evaluated {
  id: number;
  output: unknown;
  timings: Timing[];
}

/** evaluate → success answer checked for shape, id and timings; then the analysis the eval would send. */
async function evaluateOk(s: Session, module: string, fn: string, input: unknown, minRuns: number, minSeconds: number, description?: string): Promise<Evaluated> {
  const id = s.id();
  const a = await s.send({ id, kind: 'evaluate', module, function: fn, input, ...(description === undefined ? {} : { description }) }, 60_000);
  expect(a.json['success'], a.line.slice(0, 500)).toBe(true);
  expectKeys(a, ['id', 'success', 'output', 'timings'], ['id', 'success', 'output', 'timings']);
  expect(a.json['id']).toBe(id);
  const timings = checkTimings(a);
  checkRepetitions(timings, minRuns, minSeconds);
  return { id, output: a.json['output'], timings };
}

async function evaluateFails(s: Session, req: Json): Promise<string | undefined> {
  const id = s.id();
  const a = await s.send({ id, kind: 'evaluate', ...req });
  expectKeys(a, ['id', 'success', 'error'], ['id', 'success']);
  expect(a.json['id']).toBe(id);
  expect(a.json['success']).toBe(false);
  const e = a.json['error'];
  if (e !== undefined) expect(typeof e).toBe('string');
  return e as string | undefined;
}

// ---------------------------------------------------------------------------
// Full sessions per eval, on golden instances

interface Plan {
  instances: string[];
  minRuns: number;
}

const PLANS: Record<string, Plan> = {
  saddle: { instances: ['start_0p5_minus0p75'], minRuns: 1 },
  particle: { instances: ['w_minus0p25'], minRuns: 1 },
  hello: { instances: ['x_1', 'x_2', 'x_128'], minRuns: 1 },
  lse: { instances: ['tiny_stability', 'n2500'], minRuns: 3 },
  llsq: { instances: ['tiny_n5_m3', 'n16_m128'], minRuns: 3 },
  det: { instances: ['ell5', 'ell7'], minRuns: 2 },
  ode: { instances: ['tiny_n4_s2', 'n1000_s10'], minRuns: 2 },
  gmm: { instances: ['tiny_d3_k4_n10_m2', 'd2_k5_n1000'], minRuns: 2 },
  kmeans: { instances: ['tiny_k2_n6_d2', 'k10_n1000_d8'], minRuns: 2 },
  lstm: { instances: ['tiny_l1_c8', 'l2_c1024'], minRuns: 2 },
  ba: { instances: ['tiny_n3_m4_p10', 'ba1_n49_m7776_p31843'], minRuns: 2 },
  ht: { instances: ['simple_small_hand1_c100', 'complicated_small_hand1_c100'], minRuns: 2 },
};

function golden(evalName: string, instance: string): GoldenFile {
  return loadGoldenFile(join(goldenDir(evalName), `${instance}.json`));
}

beforeAll(() => {
  ensureBuilt();
}, 180_000);

afterAll(() => {
  if (privateBuild !== null) rmSync(privateBuild, { recursive: true, force: true });
});

// Everything concurrently (the slow particle/saddle sessions first), each test with its own tool process.
describe.concurrent('tsad-gradbench', () => {
  describe('package', () => {
    it('is left out of the published bin (it needs evals/), and the built file starts with a shebang', () => {
      const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };
      expect(pkg.bin['tsad-gradbench']).toBeUndefined();
      expect(readFileSync(join(ROOT, 'src/cli/gradbench.ts'), 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
      expect(readFileSync(TOOL, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    });
  });

  describe('full session per eval', () => {
    for (const [evalName, plan] of Object.entries(PLANS)) {
      it(`${evalName}: start, define, evaluate every function on ${plan.instances.join(', ')}, analysis, EOF`, async () => {
        const s = new Session();
        try {
          await start(s, evalName);
          const compileTimings = await define(s, evalName);
          expect(compileTimings.length).toBeGreaterThan(0);
          for (const instance of plan.instances) {
            const g = golden(evalName, instance);
            const hello = evalName === 'hello';
            // hello inputs are bare numbers: no repetition fields, one run
            const input = hello ? g.input : { ...(g.input as Json), min_runs: plan.minRuns, min_seconds: 0 };
            for (const fn of Object.keys(g.outputs)) {
              const r = await evaluateOk(s, evalName, fn, input, hello ? 1 : plan.minRuns, 0, instance);
              if (hello) expect(r.timings.filter((t) => t.name === 'evaluate').length).toBe(1);
              // preparation is reported apart from the runs, and no compilation after define
              expect(r.timings.filter((t) => t.name === 'prepare').length).toBe(1);
              expect(r.timings.some((t) => t.name === 'compile')).toBe(false);
              expect(describeMismatches(r.output, g.outputs[fn], TOL), `${evalName} ${instance} ${fn}`).toBe('');
              await analysis(s, r.id, true);
            }
          }
          const { code, extra } = await s.end();
          expect(extra).toEqual([]);
          expect(code).toBe(0);
        } finally {
          s.kill();
        }
      });
    }
  });

  // ---------------------------------------------------------------------------
  // Repetition, long lines, end of input

  describe('protocol details', () => {
    it('evaluate without define compiles on demand (timed as "compile"); min_seconds and min_runs honoured; multi-megabyte line', async () => {
      const s = new Session();
      try {
        await start(s);
        // no define for det: the answer carries the compilation as a separate timing
        const gd = golden('det', 'ell5');
        const d1 = await evaluateOk(s, 'det', 'gradient', { ...(gd.input as Json), min_runs: 2, min_seconds: 0 }, 2, 0);
        expect(d1.timings.some((t) => t.name === 'compile')).toBe(true);
        expect(describeMismatches(d1.output, gd.outputs['gradient'], TOL)).toBe('');
        const d2 = await evaluateOk(s, 'det', 'gradient', { ...(gd.input as Json), min_runs: 1, min_seconds: 0 }, 1, 0);
        expect(d2.timings.some((t) => t.name === 'compile')).toBe(false);
        expect(d2.output).toEqual(d1.output);

        // min_seconds: repeat until the summed run time reaches it (and not longer: checkRepetitions)
        expect((await define(s, 'llsq')).length).toBeGreaterThan(0);
        // a repeated define succeeds without compiling again
        expect(await define(s, 'llsq')).toEqual([]);
        const g = golden('llsq', 'n16_m128');
        const r = await evaluateOk(s, 'llsq', 'gradient', { ...(g.input as Json), min_runs: 1, min_seconds: 0.2 }, 1, 0.2);
        expect(r.timings.filter((t) => t.name === 'evaluate').length).toBeGreaterThan(1);
        expect(describeMismatches(r.output, g.outputs['gradient'], TOL)).toBe('');
        // min_runs dominates when min_seconds is 0
        const r2 = await evaluateOk(s, 'llsq', 'primal', { ...(g.input as Json), min_runs: 7, min_seconds: 0 }, 7, 0);
        expect(r2.timings.filter((t) => t.name === 'evaluate').length).toBe(7);
        expect(describeMismatches(r2.output, g.outputs['primal'], TOL)).toBe('');

        // a request line of several megabytes (lse, n = 200 000)
        await define(s, 'lse');
        const n = 200_000;
        const x = Array.from({ length: n }, (_, i) => Math.sin(i) * 3 + 1e-3 * i);
        const id = s.id();
        const line = JSON.stringify({ id, kind: 'evaluate', module: 'lse', function: 'gradient', input: { x, min_runs: 1, min_seconds: 0 } });
        expect(line.length).toBeGreaterThan(3_000_000);
        const a = await s.sendRaw(line, 60_000);
        expect(a.json['id']).toBe(id);
        expect(a.json['success']).toBe(true);
        const grad = a.json['output'] as number[];
        expect(grad.length).toBe(n);
        // the gradient of log-sum-exp is the softmax: positive, sums to 1
        expect(Math.abs(grad.reduce((t, v) => t + v, 0) - 1)).toBeLessThan(1e-9);
        expect(grad.every((v) => v > 0)).toBe(true);

        const { code, extra } = await s.end();
        expect(extra).toEqual([]);
        expect(code).toBe(0);
      } finally {
        s.kill();
      }
    });
  });

  describe('errors', () => {
    it('malformed lines, missing/unknown kinds, unknown modules at define; ids echoed verbatim; a last line without newline', async () => {
      const s = new Session();
      try {
        for (const bad of ['not json', '{"id": 3, "kind": ', '[1, 2]', '42', '"start"', 'null']) {
          const a = await s.sendRaw(bad);
          expectKeys(a, ['id', 'success', 'error'], ['id', 'success']);
          expect(a.json['id']).toBe(null);
          expect(a.json['success']).toBe(false);
          expect(typeof a.json['error']).toBe('string');
        }
        // an object without a (string) kind: echo the id, report the error
        expect((await s.send({ id: 17 })).json).toMatchObject({ id: 17, success: false });
        expect((await s.send({ id: 18, kind: 5 })).json).toMatchObject({ id: 18, success: false });
        // unknown kinds are treated like analysis
        expect((await s.send({ id: 19, kind: 'shutdown', whatever: [1] })).json).toEqual({ id: 19 });
        expect((await s.send({ id: 20, kind: 'analysis', of: 4, valid: false, error: 'Found 1 mismatches' })).json).toEqual({ id: 20 });
        // ids are echoed as received
        expect((await s.send({ id: 'abc', kind: 'start' })).json).toMatchObject({ id: 'abc', tool: 'tsad' });
        // unknown module at define: success false with an error naming it
        const u = await s.send({ id: 21, kind: 'define', module: 'nosuch' });
        expectKeys(u, ['id', 'success', 'error'], ['id', 'success']);
        expect(u.json).toMatchObject({ id: 21, success: false });
        expect(String(u.json['error'])).toContain('nosuch');
        // inherited property names are not modules either; a define without module fails too
        for (const m of ['toString', '__proto__', 'constructor']) {
          expect((await s.send({ id: 22, kind: 'define', module: m })).json).toMatchObject({ id: 22, success: false });
        }
        expect((await s.send({ id: 23, kind: 'define' })).json).toMatchObject({ id: 23, success: false });
        // blank lines are not requests: the next answer belongs to the next request
        s.write('\n   \n');
        expect((await s.send({ id: 24, kind: 'define', module: 'hello' })).json).toMatchObject({ id: 24, success: true });
        // the last request without a trailing newline is still answered; then EOF → exit 0
        const last = await s.sendRaw(JSON.stringify({ id: 25, kind: 'evaluate', module: 'hello', function: 'double', input: 3 }), 30_000, false);
        expect(last.json).toMatchObject({ id: 25, success: true, output: 6 });
        const { code, extra } = await s.end();
        expect(extra).toEqual([]);
        expect(code).toBe(0);
      } finally {
        s.kill();
      }
    });

    it('unknown module / function and bad inputs at evaluate: success false, session goes on', async () => {
      const s = new Session();
      try {
        await start(s, 'lse');
        await define(s, 'lse');
        const x = { x: [1, 2, 3], min_runs: 1, min_seconds: 0 };
        expect(await evaluateFails(s, { module: 'nosuch', function: 'primal', input: x })).toContain('nosuch');
        expect(await evaluateFails(s, { module: 'lse', function: 'hessian', input: x })).toContain('hessian');
        expect(await evaluateFails(s, { module: 'lse', function: 'toString', input: x })).toContain('toString');
        expect(await evaluateFails(s, { module: 'lse', function: '__proto__', input: x })).toBeDefined();
        await evaluateFails(s, { module: 'lse', input: x });
        await evaluateFails(s, { module: 'lse', function: 'primal' }); // no input
        await evaluateFails(s, { module: 'lse', function: 'gradient', input: { x: 'abc', min_runs: 1, min_seconds: 0 } });
        await evaluateFails(s, { module: 'lse', function: 'gradient', input: { y: [1], min_runs: 1, min_seconds: 0 } });
        await evaluateFails(s, { module: 'lse', function: 'gradient', input: { x: [], min_runs: 1, min_seconds: 0 } });
        await evaluateFails(s, { module: 'lse', function: 'gradient', input: { x: [1], min_runs: 'many', min_seconds: 0 } });
        await evaluateFails(s, { module: 'lse', function: 'gradient', input: null });
        // other modules' bad inputs (not defined in this session) are answers too
        await evaluateFails(s, { module: 'gmm', function: 'jacobian', input: { d: 2, k: 1, n: 1, min_runs: 1, min_seconds: 0 } });
        await evaluateFails(s, { module: 'ht', function: 'jacobian', input: { theta: [1, 2], min_runs: 1, min_seconds: 0 } });
        await evaluateFails(s, { module: 'saddle', function: 'rr', input: { start: [1], min_runs: 1, min_seconds: 0 } });
        await evaluateFails(s, { module: 'hello', function: 'double', input: 'three' });
        // after all that the tool still works
        const r = await evaluateOk(s, 'lse', 'primal', x, 1, 0);
        expect(Math.abs((r.output as number) - Math.log(Math.exp(1) + Math.exp(2) + Math.exp(3)))).toBeLessThan(1e-12);
        const { code, extra } = await s.end();
        expect(extra).toEqual([]);
        expect(code).toBe(0);
      } finally {
        s.kill();
      }
    });
  });
});
