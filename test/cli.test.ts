// The built `tsad` command (dist/src/cli/main.js) on temporary files: help, output to stdout and to a
// directory, modes, --wrt/--of, --js (valid and runnable JavaScript), --check with and without --input,
// and the exit status and located diagnostics of bad usage and bad input.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDistBuilt } from './support/build.js';
import { typecheckModules } from './support/typecheck.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'dist/src/cli/main.js');
const RUNTIME_URL = pathToFileURL(join(ROOT, 'dist/src/runtime/index.js')).href;

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

let dir: string;
/** Runs the CLI in the temp directory (asynchronously, so that independent runs overlap). */
function tsad(...args: string[]): Promise<Run> {
  return node(CLI, ...args);
}
function node(...args: string[]): Promise<Run> {
  return new Promise((res) => {
    execFile(process.execPath, args, { cwd: dir, encoding: 'utf8', timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
      res({ status: code, stdout, stderr });
    });
  });
}
function write(name: string, text: string): string {
  writeFileSync(join(dir, name), text);
  return name;
}

const MODEL = `export function loss(w: number[], x: number[], bias: number): number {
  let s = bias;
  for (let i = 0; i < w.length; i++) s += w[i] * x[i];
  return Math.log(1 + Math.exp(-s));
}

export function other(a: number): number {
  return a * a;
}
`;

const STEP = `export function step(state: number[], dt: number): void {
  for (let i = 0; i < state.length; i++) state[i] = state[i] + dt * Math.sin(state[i]);
}
`;

const BAD = `export function g(x: number): number {
  let s = 0;
  try { s = x * x; } catch (e) { s = 0; }
  return s;
}
`;

beforeAll(() => {
  ensureDistBuilt();
  dir = mkdtempSync(join(tmpdir(), 'tsad-cli-'));
  write('model.ts', MODEL);
  write('step.ts', STEP);
  write('bad.ts', BAD);
}, 120_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.concurrent('tsad --help', () => {
  it('exits 0 and shows usage, options and examples', async () => {
    for (const r of await Promise.all([tsad('--help'), tsad('-h')])) {
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/Usage:/);
      expect(r.stdout).toMatch(/Examples:/);
      expect(r.stdout).toMatch(/tsad model\.ts --head loss/);
      for (const opt of ['--head', '--wrt', '--of', '--mode', '--out', '--js', '--check', '--input']) expect(r.stdout).toContain(opt);
    }
  });
});

describe.concurrent('code generation', () => {
  it('prints tangent, vector tangent and adjoint to stdout by default', async () => {
    const r = await tsad('model.ts', '--head', 'loss');
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    for (const fn of ['loss', 'loss_d', 'loss_dv', 'loss_fwd', 'loss_bwd', 'loss_b']) expect(r.stdout).toMatch(new RegExp(`export function ${fn}\\(`));
    expect(r.stdout).toMatch(/import \{ Tape \} from 'tsad\/runtime';/);
    expect(r.stdout).not.toMatch(/function other_/); // only the head's derivatives
  });

  it('the TypeScript output type-checks under --strict', async () => {
    const r = await tsad('model.ts', '--head', 'loss');
    expect(typecheckModules({ model_ad: r.stdout })).toEqual([]);
  });

  it('--mode reverse generates only the adjoint', async () => {
    const r = await tsad('model.ts', '--head', 'loss', '--mode', 'reverse');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/function loss_b\(/);
    expect(r.stdout).toMatch(/function loss_fwd\(/);
    expect(r.stdout).not.toMatch(/function loss_d\(/);
    expect(r.stdout).not.toMatch(/function loss_dv\(/);
  });

  it('--check where the function is not finite at random points (an index array drawn fractional) is INCONCLUSIVE and asks for --input, not FAILED', async () => {
    const f = write('gather.ts', 'export function gather(x: number[], idx: number[]): number {\n  let s = 0;\n  for (let k = 0; k < idx.length; k++) s += x[idx[k]] * x[idx[k]];\n  return s;\n}\n');
    const random = await tsad(f, '--head', 'gather', '--check');
    expect(random.status).toBe(1);
    expect(random.stdout).toMatch(/check INCONCLUSIVE: 'gather' itself is not finite at 5 random points/);
    expect(random.stdout).toMatch(/hint: check at a point of yours with --input/);
    expect(random.stdout).not.toMatch(/FAIL/);
    const given = await tsad(f, '--head', 'gather', '--check', '--input', '[[1, 2, 3, 4], [0, 2, 3]]');
    expect(given.status, given.stdout + given.stderr).toBe(0);
    expect(given.stdout).toMatch(/check passed/);
  });

  it('--check at an --input point where the function (or its derivative) is not finite says so, not FAILED with an error of Infinity (trial 27)', async () => {
    const f = write('notfinite.ts', 'export function lg(x: number[]): number {\n  return Math.log(x[0]) * x[1];\n}\nexport function root(x: number[]): number {\n  return Math.sqrt(x[0]) + x[1];\n}\nexport function cb(x: number[]): number {\n  return Math.cbrt(x[0]) + x[1];\n}\n');
    // NaN at the point itself (a logarithm of a negative)
    const at = await tsad(f, '--head', 'lg', '--check', '--input', '[[-1, 2]]');
    expect(at.status).toBe(1);
    expect(at.stdout).toMatch(/check INCONCLUSIVE: 'lg' itself is not finite \(NaN or ±Infinity\) at the --input point \(x = \[-1, 2\]\)/);
    expect(at.stdout).not.toMatch(/FAIL|Infinity  accuracy/);
    // finite at the point, NaN one step away (a square root at 0): its divided differences judge nothing
    const edge = await tsad(f, '--head', 'root', '--check', '--input', '[[0, 2]]');
    expect(edge.status).toBe(1);
    expect(edge.stdout).toMatch(/tangent vs divided differences +not finite: the tangent and the divided differences/);
    expect(edge.stdout).toMatch(/check INCONCLUSIVE: 'root' is not finite within a step of the --input point/);
    expect(edge.stdout).not.toMatch(/FAIL/);
    // finite differences, an infinite tangent (the cube root's slope at 0): a failure that says what is not finite
    const slope = await tsad(f, '--head', 'cb', '--check', '--input', '[[0, 1]]');
    expect(slope.status).toBe(1);
    expect(slope.stdout).toMatch(/FAIL: the tangent is not finite \(Infinity\) where the divided differences are/);
    expect(slope.stdout).not.toMatch(/by Infinity/);
    // and where it is finite, the same function passes
    const fine = await tsad(f, '--head', 'lg', '--check', '--input', '[[1.5, 2]]');
    expect(fine.status, fine.stdout + fine.stderr).toBe(0);
    expect(fine.stdout).toMatch(/check passed/);
  });

  it('--mode reverse --check at a jump is INCONCLUSIVE (exit 1), not passed: without a tangent the adjoint had nothing to be compared with', async () => {
    const f = write('jump.ts', 'export function f(x: number): number { return x > 1 ? 3 * x + 1 : 3 * x; }\n');
    const at = await tsad(f, '--head', 'f', '--check', '--input', '[1]', '--mode', 'reverse');
    expect(at.status).toBe(1);
    expect(at.stdout).toMatch(/check INCONCLUSIVE: .*the adjoint was not compared/);
    const away = await tsad(f, '--head', 'f', '--check', '--input', '[0.5]', '--mode', 'reverse');
    expect(away.status, away.stdout + away.stderr).toBe(0);
    expect(away.stdout).toMatch(/check passed/);
    // (no tangent was generated: no line claims one was compared)
    expect(away.stdout).toMatch(/adjoint vs divided differences \(dot product\)/);
    expect(away.stdout).not.toMatch(/tangent vs divided differences|vector vs scalar tangents/);
  });

  it('--mode hvp generates the gradient and its tangents, type-checks, and passes --check', async () => {
    const r = await tsad('model.ts', '--head', 'loss', '--mode', 'hvp');
    expect(r.status).toBe(0);
    for (const f of ['loss_b', 'loss_grad', 'loss_grad_d', 'loss_grad_dv']) expect(r.stdout).toMatch(new RegExp(`function ${f}\\(`));
    expect(typecheckModules({ model_ad: r.stdout })).toEqual([]);
    const c = await tsad('model.ts', '--head', 'loss', '--mode', 'hvp', '--check');
    expect(c.stdout).toMatch(/check passed/);
    // the gradient itself is compared with divided differences of the function (its tangent only with the gradient)
    expect(c.stdout).toMatch(/gradient vs divided differences +(-?[\d.e+-]+) vs (-?[\d.e+-]+)/);
    expect(c.stdout).not.toMatch(/dot product|NaN/);
    // (and H·v, the tangent of the gradient, against divided differences of the gradient: trial 23 found no line for it)
    expect(c.stdout).toMatch(/H·v vs differences of the gradient +error [\d.e+-]+ +accuracy/);
    const sv = await tsad('model.ts', '--head', 'loss', '--mode', 'reverse', '--sparse-vector');
    expect(sv.status).toBe(2);
    expect(sv.stderr).toMatch(/--sparse-vector is a form of the vector mode, which --mode reverse does not generate/);
    const mixed = await tsad('model.ts', '--head', 'loss', '--mode', 'hvp,reverse');
    expect(mixed.status).toBe(2);
    expect(mixed.stderr).toMatch(/--mode hvp is compiled on its own/);
    const vec = await tsad('step.ts', '--head', 'step', '--mode', 'hvp');
    expect(vec.status).toBe(1);
    expect(vec.stderr).toMatch(/^step\.ts:1:1: error: 'step' does not return a single number/);
  });

  it('--mode hvp --check at an --input point that leaves an optional parameter out', async () => {
    // the gradient check gave the absent parameter a direction: NaN, a false failure
    write('opt.ts', 'export function f(x: number, y?: number): number {\n  const s = y ?? 2;\n  return x * x * s;\n}\n');
    const c = await tsad('opt.ts', '--head', 'f', '--mode', 'hvp', '--check', '--input', '[1.5]');
    expect(c.status, c.stdout + c.stderr).toBe(0);
    expect(c.stdout).toMatch(/check passed/);
    expect(c.stdout).not.toMatch(/NaN/);
  });

  it('--check and --jacobian at an --input point that leaves a defaulted parameter out', async () => {
    write('scaled.ts', 'export function scaled(x: number, k: number = 2): number {\n  return x * Math.sin(k) + k * x * x;\n}\n');
    const c = await tsad('scaled.ts', '--head', 'scaled', '--check', '--input', '[1.3]');
    expect(c.status, c.stdout + c.stderr).toBe(0);
    expect(c.stdout).toMatch(/check passed/);
    const j = await tsad('scaled.ts', '--head', 'scaled', '--jacobian', '--input', '[1.3]');
    expect(j.status, j.stderr).toBe(0);
    expect(JSON.parse(j.stdout)).toEqual([[expect.closeTo(Math.sin(2) + 4 * 1.3, 12)]]);
  });

  it('--mode hvp --check and --hessian size arrays by what the primal reads', async () => {
    write('tail.ts', 'export function tail3(x: number[]): number {\n  return x[0] * x[1] * x[5] + Math.sin(x[5]);\n}\n');
    const short = await tsad('tail.ts', '--head', 'tail3', '--mode', 'hvp', '--check', '--input', '[[1, 2]]');
    expect(short.status).toBe(2);
    expect(short.stderr).toMatch(/reads x\[5\], past the end of the array given; make it at least 6 long/);
    const h = await tsad('tail.ts', '--head', 'tail3', '--hessian');
    expect(h.status, h.stderr).toBe(0);
    expect(JSON.parse(h.stdout)).toHaveLength(6);
  });

  it('--jacobian and --hessian print the matrix at the --input point as JSON rows', async () => {
    write('fields.ts', 'export function fields(x: number[], y: number): number[] {\n  return [x[0] * y, Math.sin(x[1]) * x[2], y * y];\n}\n');
    write('rosen.ts', 'export function rosen(x: number[]): number {\n  let s = 0;\n  for (let i = 0; i + 1 < x.length; i++) s += 100 * (x[i + 1] - x[i] * x[i]) ** 2 + (1 - x[i]) ** 2;\n  return s;\n}\n');
    const want = [[0.5, 0, 0, 1], [0, 3 * Math.cos(2), Math.sin(2), 0], [0, 0, 0, 1]];
    for (const mode of [[], ['--mode', 'reverse'], ['--mode', 'tangent,vector']]) {
      const r = await tsad('fields.ts', '--head', 'fields', '--jacobian', '--input', '[[1, 2, 3], 0.5]', ...mode);
      expect(r.status, r.stderr).toBe(0);
      const J = JSON.parse(r.stdout) as number[][];
      J.forEach((row, i) => row.forEach((v, j) => expect(v).toBeCloseTo(want[i][j], 12)));
      expect(r.stderr).toMatch(/the Jacobian of 'fields' at x = \[1, 2, 3\], y = 0\.5 \(3 × 4; rows: the result; columns: the floats of x, y in order\)/);
    }
    // output arrays named by --of are rows too (they were left out: a 1 × 5 matrix of the result alone)
    write('scale.ts', 'export function scale(a: number, x: number[], y: number[]): number {\n  for (let i = 0; i < x.length; i++) y[i] = a * x[i];\n  return a * a;\n}\nexport function axpy(a: number, x: number[], y: number[]): void {\n  for (let i = 0; i < x.length; i++) y[i] += a * x[i];\n}\n');
    for (const mode of [[], ['--mode', 'reverse'], ['--mode', 'tangent']]) {
      const s = await tsad('scale.ts', '--head', 'scale', '--of', 'return,y', '--jacobian', '--input', '[2, [1, 2], [3, 4]]', ...mode);
      expect(s.status, s.stderr).toBe(0);
      expect(JSON.parse(s.stdout)).toEqual([[4, 0, 0, 0, 0], [1, 2, 0, 0, 0], [2, 0, 2, 0, 0]]);
      expect(s.stderr).toMatch(/\(3 × 5; rows: the result, then the floats of y;/);
      const v = await tsad('scale.ts', '--head', 'axpy', '--jacobian', '--input', '[2, [1, 2], [3, 4]]', ...mode);
      expect(JSON.parse(v.stdout)).toEqual([[1, 2, 0, 1, 0], [2, 0, 2, 0, 1]]);
    }
    // by hand: H = [[1200 x0² − 400 x1 + 2, −400 x0, 0], [−400 x0, 200 + 1200 x1² − 400 x2 + 2, −400 x1], [0, −400 x1, 200]]
    const h = await tsad('rosen.ts', '--head', 'rosen', '--hessian', '--input', '[[0.3, -0.5, 1.2]]');
    expect(h.status, h.stderr).toBe(0);
    expect(JSON.parse(h.stdout)).toEqual([[310, -120, 0], [-120, 22, 200], [0, 200, 200]].map((r) => r.map((v) => expect.closeTo(v, 9))));
    const both = await tsad('rosen.ts', '--head', 'rosen', '--hessian', '--check');
    expect(both.status).toBe(2);
    expect(both.stderr).toMatch(/--hessian prints a matrix: it does not combine with --check/);
    const vec = await tsad('fields.ts', '--head', 'fields', '--hessian');
    expect(vec.status).toBe(1);
    expect(vec.stderr).toMatch(/'fields' does not return a single number/);
  });

  it('--sparse prints the --jacobian or --hessian in coordinates, the dense matrix\'s entries', async () => {
    write('chain.ts', 'export function chain(x: number[]): number {\n  let s = 0;\n  for (let i = 0; i + 1 < x.length; i++) s += 100 * (x[i + 1] - x[i] * x[i]) ** 2 + (1 - x[i]) ** 2;\n  return s;\n}\n');
    write('axpy2.ts', 'export function axpy2(a: number, x: number[], y: number[]): void {\n  for (let i = 0; i < x.length; i++) y[i] += a * x[i] * x[i];\n}\n');
    const input = '[[0.3, -0.5, 1.2, 0.7, 2]]';
    const [dense, sparse] = await Promise.all([tsad('chain.ts', '--head', 'chain', '--hessian', '--input', input), tsad('chain.ts', '--head', 'chain', '--hessian', '--sparse', '--input', input)]);
    expect(sparse.status, sparse.stderr).toBe(0);
    const H = JSON.parse(dense.stdout) as number[][];
    const S = JSON.parse(sparse.stdout) as { shape: number[]; rows: number[]; cols: number[]; values: number[] };
    expect(S.shape).toEqual([5, 5]);
    expect(S.values.length).toBe(13);
    const back = H.map((r) => r.map(() => 0));
    S.values.forEach((v, e) => (back[S.rows[e]][S.cols[e]] = v));
    expect(back).toEqual(H.map((r) => r.map((v) => expect.closeTo(v, 9))));
    expect(sparse.stderr).toMatch(/the sparse Hessian of 'chain' at x = .* \(5 × 5, 13 entries, 3 colours; pattern [\d.]+ ms in 1 sweeps, colouring [\d.]+ ms, evaluation [\d.]+ ms\)/);
    // a Jacobian of an output argument (--of): by tangent sweeps
    const j = await tsad('axpy2.ts', '--head', 'axpy2', '--jacobian', '--sparse', '--input', '[2, [1, 2], [3, 4]]');
    expect(j.status, j.stderr).toBe(0);
    expect(JSON.parse(j.stdout)).toEqual({ shape: [2, 5], rows: [0, 0, 0, 1, 1, 1], cols: [0, 1, 3, 0, 2, 4], values: [1, 4, 1, 4, 8, 1] });
    const alone = await tsad('chain.ts', '--head', 'chain', '--sparse');
    expect(alone.status).toBe(2);
    expect(alone.stderr).toMatch(/--sparse goes with --jacobian or --hessian/);
  });

  it('--jacobian --sparse goes by blocks where the head loops over independent items, else colours and says why', async () => {
    write('pairs.ts', 'export function pairs(cams: number[][], x: number[], obs: number[]): Float64Array {\n  const r = new Float64Array(2 * x.length);\n  for (let i = 0; i < x.length; i++) {\n    const cam = cams[obs[i]];\n    r[2 * i] = cam[0] * Math.sin(x[i]) - cam[1];\n    r[2 * i + 1] = x[i] * x[(i + 1) % x.length] + cam[1] * cam[1];\n  }\n  return r;\n}\n');
    const input = '[[[0.5, 1], [2, -1]], [0.3, -0.7, 1.1], [1, 0, 1]]';
    const [dense, sparse] = await Promise.all([tsad('pairs.ts', '--head', 'pairs', '--wrt', 'cams,x', '--jacobian', '--input', input), tsad('pairs.ts', '--head', 'pairs', '--wrt', 'cams,x', '--jacobian', '--sparse', '--input', input)]);
    expect(sparse.status, sparse.stderr).toBe(0);
    expect(sparse.stderr).toMatch(/the sparse Jacobian of 'pairs' at .* \(6 × 7, \d+ entries, by blocks: 3 dense blocks, one an iteration; pattern [\d.]+ ms, evaluation [\d.]+ ms\)/);
    const J = JSON.parse(dense.stdout) as number[][];
    const S = JSON.parse(sparse.stdout) as { shape: number[]; rows: number[]; cols: number[]; values: number[] };
    expect(S.shape).toEqual([6, 7]);
    const back = J.map((r) => r.map(() => 0));
    S.values.forEach((v, e) => (back[S.rows[e]][S.cols[e]] = v));
    expect(back).toEqual(J.map((r) => r.map((v) => expect.closeTo(v, 12))));
    // obs among the independents: an index computed from an independent
    const coloured = await tsad('pairs.ts', '--head', 'pairs', '--wrt', 'cams,x,obs', '--jacobian', '--sparse', '--input', input);
    expect(coloured.status, coloured.stderr).toBe(0);
    expect(coloured.stderr).toMatch(/colours; pattern/);
    expect(coloured.stderr).toMatch(/by colouring, not by blocks: not a loop over independent items: an index computed from an independent \(line 4\)/);
  });

  it('--mode vector --check compares against the scalar tangent it compiles beside', async () => {
    const r = await tsad('model.ts', '--head', 'loss', '--mode', 'vector', '--check');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/vector vs scalar tangents +error 0/);
  });

  it('--mode tangent,vector generates no adjoint and needs no tape', async () => {
    const r = await tsad('model.ts', '--head', 'loss', '--mode', 'tangent,vector');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/function loss_d\(/);
    expect(r.stdout).toMatch(/function loss_dv\(/);
    expect(r.stdout).not.toMatch(/function loss_b\(/);
    expect(r.stdout).not.toMatch(/Tape/);
  });

  it('--wrt selects the independents', async () => {
    const r = await tsad('model.ts', '--head', 'loss', '--wrt', 'w,bias');
    expect(r.status).toBe(0);
    const sig = (name: string) => r.stdout.match(new RegExp(`export function ${name}\\(([^)]*)\\)`))![1];
    expect(sig('loss_d')).toBe('w: number[], wd: number[], x: number[], bias: number, biasd: number');
    expect(sig('loss_b')).toBe('w: number[], wb: number[], x: number[], bias: number, resultb: number');
    expect(r.stdout).not.toMatch(/\bxd\b/);
    expect(r.stdout).not.toMatch(/\bxb\b/);
  });

  it('--of names an output array of a void function', async () => {
    const r = await tsad('step.ts', '--head', 'step', '--of', 'state', '--mode', 'tangent');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/export function step_d\(state: number\[\], stated: number\[\], dt: number, dtd: number\): void/);
  });

  it('-o <dir> writes <file>_ad.ts and prints nothing on stdout', async () => {
    const out = join(dir, 'gen');
    const r = await tsad('model.ts', '--head', 'loss', '--mode', 'reverse', '-o', 'gen');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/wrote .*model_ad\.ts/);
    const text = readFileSync(join(out, 'model_ad.ts'), 'utf8');
    expect(text).toMatch(/export function loss_b\(/);
    const r2 = await tsad('model.ts', '--head', 'loss', '--js', '--out', join(dir, 'gen2/nested'));
    expect(r2.status).toBe(0);
    expect(existsSync(join(dir, 'gen2/nested/model_ad.js'))).toBe(true);
  });

  it('--js emits valid JavaScript (node --check) without type annotations', async () => {
    const r = await tsad('model.ts', '--head', 'loss', '--js');
    expect(r.status).toBe(0);
    expect(r.stdout).not.toMatch(/: number/);
    const body = r.stdout.replace(/^import .*$/m, '');
    const file = join(dir, 'check_js.mjs');
    writeFileSync(file, body);
    const chk = await node('--check', file);
    expect(chk.stderr).toBe('');
    expect(chk.status).toBe(0);
  });

  it('--js --runtime: the generated module runs and its derivatives are right', async () => {
    const r = await tsad('model.ts', '--head', 'loss', '--js', '--runtime', RUNTIME_URL);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`from '${RUNTIME_URL}'`);
    writeFileSync(join(dir, 'model_ad.mjs'), r.stdout);
    const driver = `
import { loss, loss_d, loss_b } from './model_ad.mjs';
const w = [0.5, -0.25, 1], x = [1, 2, -1], bias = 0.1;
const wb = [0, 0, 0], xb = [0, 0, 0];
const biasb = loss_b(w, wb, x, xb, bias, 1);
const [v, t] = loss_d(w, [1, 0, 0], x, [0, 0, 0], bias, 0);
console.log(JSON.stringify({ v, t, wb, xb, biasb, primal: loss(w, x, bias) }));
`;
    writeFileSync(join(dir, 'driver.mjs'), driver);
    const run = await node(join(dir, 'driver.mjs'));
    expect(run.stderr).toBe('');
    const res = JSON.parse(run.stdout) as Record<string, number & number[]>;
    const s = 0.1 + 0.5 - 0.5 - 1;
    const ds = -1 / (1 + Math.exp(s));
    expect(res.v).toBe(res.primal);
    expect(res.t).toBeCloseTo(1 * ds, 14);
    [1, 2, -1].forEach((xi, i) => expect(res.wb[i]).toBeCloseTo(xi * ds, 14));
    [0.5, -0.25, 1].forEach((wi, i) => expect(res.xb[i]).toBeCloseTo(wi * ds, 14));
    expect(res.biasb).toBeCloseTo(ds, 14);
  });

  it('several input files: a head calling an imported function', async () => {
    write('helpers.ts', 'export function sq(t: number): number { return t * t; }\n');
    write('main2.ts', "import { sq } from './helpers.js';\nexport function total(x: number[]): number { let s = 0; for (let i = 0; i < x.length; i++) s += sq(x[i]); return s; }\n");
    const [r, c] = await Promise.all([
      tsad('main2.ts', 'helpers.ts', '--head', 'total', '--mode', 'reverse'),
      tsad('main2.ts', 'helpers.ts', '--head', 'total', '--check'),
    ]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/function sq_bwd\(/);
    expect(r.stdout).toMatch(/function total_b\(/);
    expect(c.status).toBe(0);
    expect(c.stdout).toMatch(/check passed/);
  });
});

describe.concurrent('tsad --check', () => {
  it('passes on a good function (random inputs)', async () => {
    const r = await tsad('model.ts', '--head', 'loss', '--check');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/tangent vs divided differences/);
    expect(r.stdout).toMatch(/adjoint vs tangent \(dot product\)/);
    expect(r.stdout).toMatch(/tape empty after adjoint\s+true/);
    // the compiled copy of the function against the source as written (one self-contained file)
    expect(r.stdout).toMatch(/primal copy vs the source\s+same/);
    expect(r.stdout).toMatch(/check passed/);
    expect(r.stdout).not.toMatch(/FAIL/);
  });

  it('passes on a void function with --of', async () => {
    const r = await tsad('step.ts', '--head', 'step', '--of', 'state', '--check');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/check passed/);
  });

  it('--input with named and positional arguments: the same point either way', async () => {
    write('named.json', JSON.stringify({ bias: 0.3, x: [0.5, 0.1, -2], w: [1, 2, 0.25] })); // not in parameter order
    write('positional.json', JSON.stringify([[1, 2, 0.25], [0.5, 0.1, -2], 0.3]));
    write('lg.ts', 'export function f(x: number): number { return Math.log(x); }\n');
    write('good.json', '{ "x": 2 }');
    write('neg.json', '[-1]');
    const [a, b, good, bad, inline] = await Promise.all([
      tsad('model.ts', '--head', 'loss', '--check', '--input', 'named.json'),
      tsad('model.ts', '--head', 'loss', '--check', '--input', 'positional.json'),
      tsad('lg.ts', '--head', 'f', '--check', '--input', 'good.json'),
      tsad('lg.ts', '--head', 'f', '--check', '--input', 'neg.json'),
      tsad('model.ts', '--head', 'loss', '--check', '--input', '{ "bias": 0.3, "x": [0.5, 0.1, -2], "w": [1, 2, 0.25] }'), // the JSON itself
    ]);
    expect(a.status).toBe(0);
    expect(b.status).toBe(0);
    expect(a.stdout).toMatch(/check passed/);
    expect(b.stdout).toMatch(/check passed/);
    expect(a.stdout).toBe(b.stdout); // deterministic: the named arguments were mapped by name
    expect(inline.stdout.replace(/--input \S.*$/m, '')).toBe(a.stdout.replace(/--input \S.*$/m, ''));
    // the point is really used: at a point outside the domain of log the check says log is not finite there
    expect(good.status).toBe(0);
    expect(bad.status).toBe(1);
    expect(bad.stdout).toMatch(/check INCONCLUSIVE: 'f' itself is not finite \(NaN or ±Infinity\) at the --input point \(x = -1\)/);
  });

  it('--check that fails where a hand-written adjoint rule is wrong names the rule, not tsad, first', async () => {
    write(
      'badrule.ts',
      `// $ad custom-derivative tangent=sq_jvp adjoint=sq_vjp
export function sq(x: number): number { return x * x; }
export function sq_jvp(x: number, xd: number): [number, number] { return [x * x, 2 * x * xd]; }
export function sq_vjp(x: number, yb: number): number { return 3 * x * yb; }
export function f(x: number): number { return sq(x) + x; }
`,
    );
    const r = await tsad('badrule.ts', '--head', 'f', '--check', '--input', '[0.7]');
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/check FAILED/);
    expect(r.stdout).toMatch(/check the hand-written adjoint rule 'sq_vjp' first/);
  });

  it('--input for nullable and optional values: null, a number, or a field left out', async () => {
    write('opt.ts', 'interface O { s?: number; f: number | null }\nexport function g(x: number, o: O): number {\n  return x * (o.s ?? 2) + (o.f !== null ? o.f * x : 0);\n}\n');
    write('opt1.json', JSON.stringify([0.5, { s: 3, f: null }]));
    write('opt2.json', JSON.stringify([0.5, { f: 1.5 }]));
    write('opt3.json', JSON.stringify([0.5, { s: 'a', f: 1 }]));
    const [one, two, bad] = await Promise.all([
      tsad('opt.ts', '--head', 'g', '--check', '--input', 'opt1.json'),
      tsad('opt.ts', '--head', 'g', '--check', '--input', 'opt2.json'),
      tsad('opt.ts', '--head', 'g', '--check', '--input', 'opt3.json'),
    ]);
    expect(one.stdout + one.stderr).toMatch(/check passed/);
    expect(two.stdout + two.stderr).toMatch(/check passed/);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/'o\.s' must be number/);
  });

  it('-o with --check writes the file and checks', async () => {
    const r = await tsad('model.ts', '--head', 'loss', '--check', '-o', 'gen3');
    expect(r.status).toBe(0);
    expect(existsSync(join(dir, 'gen3/model_ad.ts'))).toBe(true);
    expect(r.stdout).toMatch(/check passed/);
  });

  it('a wrong derivative fails the check with exit 1', async () => {
    // BUG-driven example (see runtime-api.test.ts): the adjoint of a nested array literal is dropped,
    // which the dot-product test catches. Whatever the cause, a failed check must exit 1.
    write('nest1.ts', 'export function h(x: number[]): number[][] {\n  return [[x[0] * x[1], x[2]]];\n}\n');
    const r = await tsad('nest1.ts', '--head', 'h', '--check');
    if (r.status === 0) expect(r.stdout).toMatch(/check passed/);
    else {
      expect(r.status).toBe(1);
      expect(r.stdout).toMatch(/FAIL: dot-product/);
      expect(r.stdout).toMatch(/check FAILED/);
    }
  });

  // the adjoint of a returned array literal nested in an array or object literal (`return [[…]]`)
  it('passes on a function returning a nested array literal', async () => {
    write('nest2.ts', 'export function h(x: number[]): { a: number[]; b: number } {\n  return { a: [x[0] * x[1], x[2]], b: x[0] };\n}\n');
    const r = await tsad('nest2.ts', '--head', 'h', '--check');
    expect(r.stdout).toMatch(/check passed/);
    expect(r.status).toBe(0);
  });

  it('passes with module-level constants named temp and tape', async () => {
    write('clash.ts', 'const temp = 5;\nconst tape = [2];\nexport function f(x: number): number {\n  return temp * tape[0] * Math.exp(x) * Math.exp(x);\n}\n');
    const r = await tsad('clash.ts', '--head', 'f', '--check');
    expect(r.stdout).toMatch(/check passed/);
    expect(r.status).toBe(0);
  });

  it('--stats prints the adjoint tape: pushes per stack, peak and traffic', async () => {
    const r = await tsad('model.ts', '--head', 'loss', '--check', '--stats');
    expect(r.status).toBe(0);
    const m = /tape pushes \(floats\/ints\/refs\)\s+(\d+) \/ (\d+) \/ (\d+)/.exec(r.stdout);
    expect(m).not.toBeNull();
    const [f, i, refs] = m!.slice(1).map(Number);
    const peak = Number(/tape peak\s+(\d+) bytes/.exec(r.stdout)![1]);
    const traffic = Number(/tape traffic \(pushes \+ pops\)\s+(\d+) bytes/.exec(r.stdout)![1]);
    expect(peak).toBe(8 * f + 4 * i + 8 * refs);
    expect(traffic).toBe(2 * peak);
    const plain = await tsad('model.ts', '--head', 'loss', '--check');
    expect(plain.stdout).not.toMatch(/tape pushes/);
  });

  it('a missing or malformed --input file is a usage error', async () => {
    const r = await tsad('model.ts', '--head', 'loss', '--check', '--input', 'nope.json');
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stderr).toMatch(/cannot read --input file 'nope\.json'/);
    expect(r.status).toBe(2);
    writeFileSync(join(dir, 'bad.json'), '[1, 2');
    const b = await tsad('model.ts', '--head', 'loss', '--check', '--input', 'bad.json');
    expect(b.stderr).toMatch(/'bad\.json' is not valid JSON/);
    expect(b.status).toBe(2);
  });
});

describe.concurrent('bad usage (exit 2)', () => {
  it('unknown option', async () => {
    const r = await tsad('model.ts', '--head', 'loss', '--bogus');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/unknown option '--bogus'/);
    expect(r.stdout).toBe('');
  });

  it('missing --head', async () => {
    const r = await tsad('model.ts');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--head/);
  });

  it('--head without a value, no input files, unknown mode, unreadable file', async () => {
    const [noValue, noFiles, m, f] = await Promise.all([
      tsad('model.ts', '--head'),
      tsad('--head', 'loss'),
      tsad('model.ts', '--head', 'loss', '--mode', 'sideways'),
      tsad('missing.ts', '--head', 'loss'),
    ]);
    expect(noValue.status).toBe(2);
    expect(noValue.stderr).toMatch(/--head needs a value/);
    expect(noFiles.status).toBe(2);
    expect(noFiles.stderr).toMatch(/no input files/);
    expect(m.status).toBe(2);
    expect(m.stderr).toMatch(/unknown mode 'sideways'/);
    expect(f.status).toBe(2);
    expect(f.stderr).toMatch(/missing\.ts/);
  });
});

describe.concurrent('diagnostics (exit 1)', () => {
  it('an unsupported construct: file:line:col, code frame and hint on stderr', async () => {
    const r = await tsad('bad.ts', '--head', 'g');
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^bad\.ts:3:3: error: .*try/m);
    expect(r.stderr).toMatch(/^> 3 \|\s+try \{ s = x \* x; \}/m); // the code frame, line marked
    expect(r.stderr).toMatch(/^\s+\|\s+\^$/m); // the caret
    expect(r.stderr).toMatch(/hint: /);
  });

  it('an unknown head lists the functions found', async () => {
    const r = await tsad('model.ts', '--head', 'nope');
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/'nope'/);
    expect(r.stderr).toMatch(/functions found: loss, other/);
  });

  it('--wrt naming a non-parameter', async () => {
    const r = await tsad('model.ts', '--head', 'loss', '--wrt', 'zeta');
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/model\.ts:\d+:\d+: error: .*'zeta'/);
    expect(r.stderr).toMatch(/parameters: w, x, bias/);
  });

  it('a TypeScript type error is located', async () => {
    write('typeerr.ts', 'export function f(x: number): number {\n  return x * undefinedName;\n}\n');
    const r = await tsad('typeerr.ts', '--head', 'f');
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/typeerr\.ts:2:14: error: .*undefinedName/);
  });
});
