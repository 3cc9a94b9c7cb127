// Every bad input gets a defined answer (issue 15): the built `tsad` command on temporary files, compile()'s
// options, and the runtime API's entry points. Also the defaults that make `--check` useful: number
// parameters used only as sizes or indices are passive, and random check points are sized to what the
// function reads.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile, frontEnd, grad, jacobian, jvp, valueAndGrad, vjp } from '../src/index.js';
import { sizeParams } from '../src/analysis/ints.js';
import { defaultWrt } from '../src/api/compile.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'dist/src/cli/main.js');

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

let dir: string;
function tsad(...args: string[]): Promise<Run> {
  return tsadIn(dir, ...args);
}
function tsadIn(cwd: string, ...args: string[]): Promise<Run> {
  return new Promise((res) => {
    execFile(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', timeout: 300_000 }, (err, stdout, stderr) => {
      res({ status: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr });
    });
  });
}
function write(name: string, text: string): string {
  mkdirSync(dirname(join(dir, name)), { recursive: true });
  writeFileSync(join(dir, name), text);
  return name;
}
/** no stack trace, no internal error text */
function clean(r: Run): void {
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.stderr + r.stdout).not.toMatch(/TypeError|EEXIST|Infinity/);
}

const MODEL = `export function loss(w: number[], x: number[], bias: number): number {
  let s = bias;
  for (let i = 0; i < w.length; i++) s += w[i] * x[i];
  return Math.log(1 + Math.exp(-s));
}
`;
const DET = `export function det(A: number[][], n: number): number {
  let d = 1;
  for (let i = 0; i < n; i++) d *= A[i][i] + A[i][(i + 1) % n];
  return d;
}
`;

beforeAll(() => {
  // the built CLI is what users run: build it like cli.test.ts does when it is missing
  if (!existsSync(CLI)) spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: ROOT });
  dir = mkdtempSync(join(tmpdir(), 'tsad-bad-'));
  write('model.ts', MODEL);
  write('det.ts', DET);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.concurrent('tsad: files and output', { timeout: 400_000 }, () => {
  it('-o naming an existing file is a usage error; an existing file inside the -o directory is overwritten', async () => {
    write('taken.txt', 'x');
    const r = await tsad('model.ts', '--head', 'loss', '-o', 'taken.txt');
    clean(r);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/-o 'taken\.txt' is an existing file, not a directory/);
    write('gen/model_ad.ts', 'old');
    const ok = await tsad('model.ts', '--head', 'loss', '--mode', 'tangent', '-o', 'gen');
    expect(ok.status).toBe(0);
    expect(readFileSync(join(dir, 'gen/model_ad.ts'), 'utf8')).toMatch(/export function loss_d\(/);
  });

  it('an input path starting with ../ works', async () => {
    mkdirSync(join(dir, 'sub'), { recursive: true });
    const r = await tsadIn(join(dir, 'sub'), '../model.ts', '--head', 'loss', '--mode', 'tangent');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/export function loss_d\(/);
  });

  it('a .js input is read as TypeScript; without types it is told to annotate or rename', async () => {
    write('typed.js', MODEL);
    write('untyped.js', 'export function f(x) { return x * x; }\n');
    const [a, b] = await Promise.all([tsad('typed.js', '--head', 'loss', '--mode', 'reverse'), tsad('untyped.js', '--head', 'f')]);
    expect(a.status).toBe(0);
    expect(a.stdout).toMatch(/export function loss_b\(/);
    expect(b.status).toBe(1);
    expect(b.stderr).toMatch(/^untyped\.js:1:19: error: parameter 'x' has no type \(TypeScript gives it 'any'\)/m);
    expect(b.stderr).toMatch(/hint: annotate it, e\.g\. `\(x: number\)`.*; tsad reads a \.js file as TypeScript: annotate it, give it a JSDoc type \(`\/\*\* @param \{number\} x \*\/`\), or rename the file to \.ts/);
  });

  it('a missing imported file: the hint names the file to pass', async () => {
    write('lib/main.ts', "import { sq } from './helpers.js';\nexport function f(x: number): number { return sq(x); }\n");
    write('lib/helpers.ts', 'export function sq(x: number): number { return x * x; }\n');
    const [miss, both] = await Promise.all([tsad('lib/main.ts', '--head', 'f'), tsad('lib/main.ts', 'lib/helpers.ts', '--head', 'f', '--mode', 'tangent')]);
    expect(miss.status).toBe(1);
    expect(miss.stderr).toMatch(/hint: tsad reads only the files it is given: pass lib\/helpers\.ts too \(tsad lib\/main\.ts lib\/helpers\.ts …/);
    expect(both.status).toBe(0);
  });
});

describe.concurrent('tsad: options', { timeout: 400_000 }, () => {
  it('--opt=value forms and --mode adjoint / forward', async () => {
    const [a, b, c] = await Promise.all([
      tsad('model.ts', '--head=loss', '--mode=adjoint', '--wrt=w'),
      tsad('model.ts', '--head', 'loss', '--mode', 'reverse', '--wrt', 'w'),
      tsad('model.ts', '--head=loss', '--mode=forward'),
    ]);
    expect(a.status).toBe(0);
    expect(a.stdout).toBe(b.stdout);
    expect(c.stdout).toMatch(/export function loss_d\(/);
    expect(c.stdout).not.toMatch(/loss_b|loss_dv/);
  });

  it('--wrt \'\', --of \'\' and unknown modes are usage errors', async () => {
    const [w, o, m, v] = await Promise.all([
      tsad('model.ts', '--head', 'loss', '--wrt', ''),
      tsad('model.ts', '--head', 'loss', '--of', ''),
      tsad('model.ts', '--head', 'loss', '--mode', 'forwrd'),
      tsad('model.ts', '--head', 'loss', '--js=yes'),
    ]);
    for (const r of [w, o, m, v]) expect(r.status).toBe(2);
    expect(w.stderr).toMatch(/--wrt needs at least one parameter name \(e\.g\. --wrt x,y\); leave --wrt out for the default/);
    expect(o.stderr).toMatch(/--of needs at least one parameter name/);
    expect(m.stderr).toMatch(/unknown mode 'forwrd'; the modes are tangent \(or forward\), vector, reverse \(or adjoint\)/);
    expect(v.stderr).toMatch(/--js takes no value/);
  });

  it('--version prints the package version; bare tsad prints the usage and exits 1', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const [v, bare] = await Promise.all([tsad('--version'), tsad()]);
    expect(v.status).toBe(0);
    expect(v.stdout).toBe(`tsad ${pkg.version}\n`);
    expect(bare.status).toBe(1);
    expect(bare.stdout).toMatch(/^tsad — source-to-source/);
    expect(bare.stdout).toMatch(/Usage:/);
  });
});

describe.concurrent('tsad --check --input', { timeout: 400_000 }, () => {
  it('the wrong number of arguments, a missing or unknown name: an error naming the parameters', async () => {
    write('two.json', '[[1, 2], [3, 4]]');
    write('nobias.json', '{ "w": [1, 2], "x": [3, 4] }');
    write('extra.json', '{ "w": [1, 2], "x": [3, 4], "bias": 1, "b": 2 }');
    const [two, nob, extra] = await Promise.all(['two.json', 'nobias.json', 'extra.json'].map((f) => tsad('model.ts', '--head', 'loss', '--check', '--input', f)));
    for (const r of [two, nob, extra]) {
      clean(r);
      expect(r.status).toBe(2);
    }
    expect(two.stderr).toMatch(/--input 'two\.json' gives 2 arguments, but 'loss' takes 3: loss\(w: number\[\], x: number\[\], bias: number\)/);
    expect(nob.stderr).toMatch(/--input 'nobias\.json' gives no value for parameter 'bias' \(number\)/);
    expect(extra.stderr).toMatch(/--input 'extra\.json' names 'b', which is not a parameter of 'loss'/);
  });

  it('a string where a number or array is expected, and arrays shorter than the function reads', async () => {
    write('str.json', '{ "w": "abc", "x": [1, 2], "bias": 1 }');
    write('elem.json', '[[1, "2"], [1, 2], 1]');
    write('short.json', '{ "w": [1, 2, 3], "x": [1, 2], "bias": 1 }');
    write('detshort.json', '[[[1, 2], [3, 4]], 3]');
    const [str, elem, short, ds] = await Promise.all([
      tsad('model.ts', '--head', 'loss', '--check', '--input', 'str.json'),
      tsad('model.ts', '--head', 'loss', '--check', '--input', 'elem.json'),
      tsad('model.ts', '--head', 'loss', '--check', '--input', 'short.json'),
      tsad('det.ts', '--head', 'det', '--check', '--input', 'detshort.json'),
    ]);
    for (const r of [str, elem, short, ds]) {
      clean(r);
      expect(r.status).toBe(2);
    }
    expect(str.stderr).toMatch(/--input 'str\.json': parameter 'w' must be number\[\], but is a string \("abc"\)/);
    expect(elem.stderr).toMatch(/--input 'elem\.json': 'w\[1\]' must be number, but is a string \("2"\)/);
    expect(short.stderr).toMatch(/'loss' reads x\[2\], past the end of the array given; make it at least 3 long/);
    expect(ds.stderr).toMatch(/'det' reads A(\[…\])?\[2\], past the end of the array given; make it at least 3 long/);
  });

  it('a good --input point for det passes', async () => {
    write('det3.json', JSON.stringify([[[2, 1, 0], [0, 3, 1], [1, 0, 4]], 3]));
    const r = await tsad('det.ts', '--head', 'det', '--check', '--input', 'det3.json');
    expect(r.stdout).toMatch(/check passed/);
    expect(r.status).toBe(0);
  });
});

describe.concurrent('tsad --check without --input', { timeout: 400_000 }, () => {
  it('det(A, n): n is passive, the random point is an integer n and arrays n long, and the check passes', async () => {
    const [check, code] = await Promise.all([tsad('det.ts', '--head', 'det', '--check'), tsad('det.ts', '--head', 'det', '--mode', 'tangent')]);
    expect(check.stdout).toMatch(/check passed/);
    expect(check.status).toBe(0);
    expect(code.stdout).toMatch(/export function det_d\(A: number\[\]\[\], Ad: number\[\]\[\], n: number\)/);
  });

  it('arrays grow to what the function reads: x[i * n + j] with i, j < n', async () => {
    write('flat.ts', 'export function f(x: number[], n: number): number {\n  let s = 0;\n  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) s += x[i * n + j] * x[j * n + i];\n  return s;\n}\n');
    const r = await tsad('flat.ts', '--head', 'f', '--check');
    expect(r.stdout).toMatch(/check passed/);
    expect(r.status).toBe(0);
  });

  it('a check outside the domain prints the point it used and suggests --input', async () => {
    // (not finite at any random point: INCONCLUSIVE, not FAILED, since the derivative was never judged)
    write('dom.ts', 'export function f(x: number[]): number {\n  return Math.log(x[0] - 2);\n}\n');
    const r = await tsad('dom.ts', '--head', 'f', '--check');
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^check INCONCLUSIVE: 'f' itself is not finite at 5 random points \(the last: x = \[\d\.\d+, \d\.\d+, \d\.\d+, \d\.\d+\]\)/m);
    expect(r.stdout).toMatch(/^hint: check at a point of yours with --input point\.json/m);
    const at = await tsad('dom.ts', '--head', 'f', '--check', '--input', '[[3, 1, 1, 1]]');
    expect(at.status, at.stdout).toBe(0);
  });
});

describe('size parameters are passive by default', () => {
  const defaults = (src: string, head: string) => {
    const mod = frontEnd(src);
    return { sizes: [...sizeParams(mod, head)], wrt: defaultWrt(mod, mod.funcs.get(head)!) };
  };

  it('loop bounds, indices, lengths and helpers that take a size: passive', () => {
    expect(defaults(DET, 'det')).toEqual({ sizes: ['n'], wrt: ['A'] });
    const viaHelper = 'function row(A: number[][], i: number, n: number): number { let s = 0; for (let j = 0; j < n; j++) s += A[i][j]; return s; }\n' +
      'export function f(A: number[][], n: number, k: number): number { const m = n - 1; let t = 0; for (let i = 0; i <= m; i++) t += row(A, i, n); return t + new Array<number>(k).fill(1)[0]; }';
    expect(defaults(viaHelper, 'f')).toEqual({ sizes: ['n', 'k'], wrt: ['A'] });
    expect(compile(DET, { head: 'det', modes: ['reverse'] }).wrt).toEqual(['A']);
  });

  it('a number that reaches a float value stays active, however it gets there', () => {
    const direct = 'export function f(x: number[], n: number): number { let s = 0; for (let i = 0; i < n; i++) s += x[i]; return s / n; }';
    const viaLocal = 'export function f(x: number[], n: number): number { const m = n - 1; let s = 0; for (let i = 0; i < n; i++) s += x[i] * m; return s; }';
    const viaHelper = 'function g(a: number): number { return a * 2; }\nexport function f(x: number[], n: number): number { let s = 0; for (let i = 0; i < n; i++) s += x[i]; return s + g(n); }';
    const threshold = 'export function f(x: number, t: number): number { return x > t ? x : 0; }';
    for (const src of [direct, viaLocal, viaHelper]) expect(defaults(src, 'f')).toEqual({ sizes: [], wrt: ['x', 'n'] });
    // a number deciding only a branch is not a size
    expect(defaults(threshold, 'f')).toEqual({ sizes: [], wrt: ['x', 't'] });
  });

  it('the runtime API skips a leading size parameter and never differentiates a size', () => {
    const f = (A: number[][], n: number) => {
      let d = 1;
      for (let i = 0; i < n; i++) d *= A[i][i];
      return d;
    };
    expect(grad(f)([[2, 1], [1, 3]], 2)).toEqual([[3, 0], [0, 2]]);
    const g = (n: number, x: number[]) => {
      let s = 0;
      for (let i = 0; i < n; i++) s += x[i] * x[i];
      return s;
    };
    expect(grad(g)(2, [1, 2])).toEqual([2, 4]);
  });
});

describe('compile() options', () => {
  it('modes: aliases accepted, anything else a TypeError listing the modes', () => {
    const a = compile(MODEL, { head: 'loss', modes: ['adjoint'] });
    const r = compile(MODEL, { head: 'loss', modes: ['reverse'] });
    expect(a.code).toBe(r.code);
    expect(compile(MODEL, { head: 'loss', modes: ['forward'] }).code).toBe(compile(MODEL, { head: 'loss', modes: ['tangent'] }).code);
    expect(() => compile(MODEL, { head: 'loss', modes: ['sideways' as never] })).toThrow(/^tsad: unknown mode 'sideways'; the modes are tangent \(or forward\), vector, reverse \(or adjoint\)$/);
    expect(() => compile(MODEL, { head: 'loss', modes: 'reverse' as never })).toThrow(TypeError);
    expect(() => compile(MODEL, { head: 'loss', modes: [] })).toThrow(/no mode given/);
  });

  it('head, wrt and of of the wrong kind: TypeErrors saying what to pass', () => {
    expect(() => compile(MODEL, undefined as never)).toThrow(/compile\(\) needs options, e\.g\. \{ head: 'loss' \}/);
    expect(() => compile(MODEL, { head: 42 as never })).toThrow(/options\.head must name the function to differentiate/);
    expect(() => compile(MODEL, { head: 'loss', wrt: 'w' as never })).toThrow(/options\.wrt must be an array of parameter names, e\.g\. \['x'\]/);
    expect(() => compile(MODEL, { head: 'loss', wrt: [] })).toThrow(/options\.wrt is empty/);
  });
});

describe('runtime API entry points', () => {
  const sq = (x: number) => x * x;
  it('not a function, no function, native and bound functions', () => {
    expect(() => grad(42 as never)).toThrow(TypeError);
    expect(() => grad(42 as never)).toThrow(/^tsad: grad needs the function to differentiate as its first argument, e\.g\. grad\(\(x\) => x \* x\), not a number \(42\)$/);
    expect(() => (grad as () => unknown)()).toThrow(/grad needs the function to differentiate .* not nothing/);
    expect(() => grad(Math.sin)).toThrow(/^tsad: grad cannot differentiate 'sin': built-in \(native\) and bound functions have no source to differentiate; wrap it in a function of your own/);
    expect(() => grad(sq.bind(null))).toThrow(/bound functions have no source/);
    for (const [name, call] of [
      ['valueAndGrad', () => valueAndGrad(1 as never)],
      ['jacobian', () => jacobian(null as never)],
      ['jvp', () => jvp('f' as never, [1], [1])],
      ['vjp', () => vjp({} as never, [1])],
    ] as const)
      expect(call).toThrow(new RegExp(`^tsad: ${name} needs the function to differentiate as its first argument`));
  });

  it('options, arguments and tangents of the wrong kind', () => {
    expect(() => grad(sq, 3 as never)).toThrow(/grad's options must be an object such as \{ wrt: 0 \}/);
    expect(() => grad(sq, { wrt: 1.5 })).toThrow(/grad's wrt must be an argument position/);
    expect(() => grad(sq, { wrt: [] })).toThrow(/grad's wrt must be/);
    expect(() => grad((x: number, y: number) => x * y)(1 as never)).toThrow(/'f' takes 2 arguments \(x, y\), but was called with 1/);
    expect(() => jvp(sq, 3 as never, [1])).toThrow(/jvp takes the arguments as an array/);
    expect(() => jvp(sq, [3], [1, 2])).toThrow(/jvp needs one tangent per independent \(x\), in an array, but got 2/);
    expect(() => jvp((x: number[]) => x[0] * x[1], [[3, 4]], [1])).toThrow(/jvp's tangent 1 must have the shape of 'x' \(2 numbers\)/);
    expect(() => vjp((x: number) => [x, x], [3])[1](1)).toThrow(/vjp's cotangent must have the shape of the function's value \(2 numbers\)/);
  });

  it('grad of a function returning an array points to jacobian and vjp', () => {
    const f = (x: number) => [x * 2, x];
    expect(() => grad(f)(1)).toThrow(/grad needs a function that returns a number, but 'f' returns an array or object; use jacobian .* or vjp/);
    expect(() => valueAndGrad(f)(1)).toThrow(/valueAndGrad needs a function that returns a number/);
    expect(jacobian(f)(1)).toEqual([[2], [1]]);
  });
});
