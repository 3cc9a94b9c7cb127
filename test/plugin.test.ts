// The bundler plugin (tsad/plugin) on one small app, built with esbuild, Rollup and Vite: the app imports
// derivatives (`./model.ts?tsad=loss`, model.ts importing a helper of its own) and calls `grad(loss)`;
// each bundle runs in Node and its gradients are compared with divided differences; no compiler is in
// it; its source map takes a backward-sweep line of the adjoint back to the model's statement. Also:
// a diagnostic becomes a build error at its file:line:col with the code frame, and the declarations the
// plugin writes type the imports exactly (a wrong call is a type error).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { originalPositionFor, TraceMap } from '@jridgewell/trace-mapping';
import * as esbuildApi from 'esbuild';
import { rollup as rollupApi, type Plugin as RollupPlugin } from 'rollup';
import ts from 'typescript';
import { build as viteBuild } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import tsadPlugin from '../src/plugin/index.js';
import { neededPart } from '../src/plugin/needed.js';
import { ensureDistBuilt } from './support/build.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
let dir = '';

const MODEL = `import { softplus } from './util.ts';

export function loss(w: number[], x: number[], b: number): number {
  let s = b;
  for (let i = 0; i < w.length; i++) {
    s += w[i] * x[i];
  }
  return softplus(-s) + 0.5 * s * s;
}
`;
const UTIL = `export function softplus(t: number): number {
  return Math.log(1 + Math.exp(t));
}
`;
/** the line of MODEL holding `s += w[i] * x[i]` */
const ACCUMULATE_LINE = 6;
const MAIN = `import { loss, loss_b, loss_d } from './model.ts?tsad=loss';
import { loss_b as lossWB } from './model.ts?tsad=loss&modes=reverse&wrt=w,b';
import { grad } from 'tsad';
import { loss as primal } from './model.ts';

const w = [0.5, -0.25, 0.75], x = [1, 2, -1], b = 0.1;
const wb = [0, 0, 0], xb = [0, 0, 0];
const bb: number = loss_b(w, wb, x, xb, b, 1);
const [value, slope] = loss_d(w, [1, 0, 0], x, [0, 0, 0], b, 0);
const wb2 = [0, 0, 0];
const bb2: number = lossWB(w, wb2, x, b, 1);
const g = grad(primal, { wrt: [0, 'b'] })(w, x, b);
const g1 = grad(primal)(w, x, b);
console.log(JSON.stringify({ value, primal: loss(w, x, b), wb, xb, bb, slope, wb2, bb2, g, g1 }));
`;

/**
 * grad(f) of a function of the module calling it (trial 25): the module imports 'tsad' and runs
 * statements, and a constant has the name of f's parameter
 */
const SELF = `import { grad } from 'tsad';
import { softplus } from './util.ts';
const SCALE = 1.5;
function loss(x: number[], g: number): number {
  let s = 0;
  for (const v of x) s += g * v * v;
  return SCALE * softplus(-s);
}
const x = [0.5, 0.1];
const dl = grad(loss, { wrt: ['x', 'g'] });
console.log(JSON.stringify(dl(x, 1.5)));
`;

function primalLoss(w: number[], x: number[], b: number): number {
  let s = b;
  for (let i = 0; i < w.length; i++) s += w[i] * x[i];
  return Math.log(1 + Math.exp(-s)) + 0.5 * s * s;
}

/** central divided differences of primalLoss along each coordinate of argument `k` */
function differences(args: [number[], number[], number], k: 0 | 1 | 2): number[] {
  const h = 1e-6;
  const n = k === 2 ? 1 : (args[k] as number[]).length;
  return Array.from({ length: n }, (_, i) => {
    const at = (d: number) => {
      const a = structuredClone(args);
      if (k === 2) a[2] += d;
      else a[k][i] += d;
      return primalLoss(...a);
    };
    return (at(h) - at(-h)) / (2 * h);
  });
}

beforeAll(() => {
  // the bundles import `tsad/runtime` as an installed package would: from the build of src/
  ensureDistBuilt();
  dir = mkdtempSync(join(tmpdir(), 'tsad-plugin-'));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(ROOT, join(dir, 'node_modules/tsad'), 'dir');
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(join(dir, 'model.ts'), MODEL);
  writeFileSync(join(dir, 'util.ts'), UTIL);
  writeFileSync(join(dir, 'main.ts'), MAIN);
  writeFileSync(join(dir, 'self.ts'), SELF);
  writeFileSync(join(dir, 'bad.ts'), 'export function f(x: number): number {\n  return x * Math.random();\n}\n');
  writeFileSync(join(dir, 'uses-bad.ts'), "import { f_b } from './bad.ts?tsad=f';\nconsole.log(f_b(1, 1));\n");
}, 300_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Rollup has no TypeScript of its own: the app's .ts files are stripped of types by esbuild, as a plugin would */
const stripTypes: RollupPlugin = {
  name: 'strip-types',
  async transform(code, id) {
    if (!/\.ts$/.test(id)) return null;
    const r = await esbuildApi.transform(code, { loader: 'ts', sourcemap: true, sourcefile: id, format: 'esm' });
    return { code: r.code, map: r.map };
  },
};

type Bundler = 'esbuild' | 'rollup' | 'vite';

/** Builds `entry` of the app with a bundler and the plugin; returns the bundle's file (its map beside it). */
async function bundle(bundler: Bundler, entry: string, outDir = `out-${bundler}`): Promise<string> {
  const out = join(dir, outDir);
  const file = join(out, entry.replace(/\.ts$/, '.js'));
  if (bundler === 'esbuild') {
    await esbuildApi.build({ entryPoints: [join(dir, entry)], bundle: true, format: 'esm', platform: 'node', outfile: file, sourcemap: true, logLevel: 'silent', plugins: [tsadPlugin.esbuild()] });
  } else if (bundler === 'rollup') {
    const b = await rollupApi({ input: join(dir, entry), plugins: [tsadPlugin.rollup(), stripTypes, nodeResolve()], onwarn: () => {} });
    await b.write({ file, format: 'es', sourcemap: true });
    await b.close();
  } else {
    await viteBuild({
      root: dir,
      configFile: false,
      logLevel: 'silent',
      plugins: [tsadPlugin.vite()],
      build: { outDir: out, emptyOutDir: true, sourcemap: true, minify: false, lib: { entry: join(dir, entry), formats: ['es'], fileName: () => entry.replace(/\.ts$/, '.js') } },
    });
  }
  return file;
}

/** resolves `tsad/runtime` (and 'tsad') from the app's node_modules, for Rollup, which has no resolver of its own */
function nodeResolve(): RollupPlugin {
  return {
    name: 'resolve-tsad',
    resolveId(id) {
      if (id === 'tsad/runtime') return join(ROOT, 'dist/src/runtime/index.js');
      if (id === 'tsad') return join(ROOT, 'dist/src/index.js');
      return null;
    },
  };
}

const close = (a: number[], b: number[]) => a.every((v, i) => Math.abs(v - b[i]) < 1e-6 * (1 + Math.abs(b[i])));

describe.each(['esbuild', 'rollup', 'vite'] as Bundler[])('%s', (bundler) => {
  let file = '';
  beforeAll(async () => {
    file = await bundle(bundler, 'main.ts');
  }, 60_000);

  it('runs the generated derivatives and grad(f) in Node, matching divided differences', () => {
    const got = JSON.parse(execFileSync(process.execPath, [file], { encoding: 'utf8' })) as Record<string, number | number[] | [number[], number]>;
    const args: [number[], number[], number] = [[0.5, -0.25, 0.75], [1, 2, -1], 0.1];
    const dw = differences(args, 0), dx = differences(args, 1), [db] = differences(args, 2);
    expect(got.value).toBeCloseTo(primalLoss(...args), 12);
    expect(got.primal).toBeCloseTo(primalLoss(...args), 12);
    expect(close(got.wb as number[], dw)).toBe(true);
    expect(close(got.xb as number[], dx)).toBe(true);
    expect(close([got.bb as number], [db])).toBe(true);
    expect(close([got.slope as number], [dw[0]])).toBe(true);
    expect(close(got.wb2 as number[], dw) && close([got.bb2 as number], [db])).toBe(true);
    const [gw, gb] = got.g as [number[], number];
    expect(close(gw, dw) && close([gb], [db])).toBe(true);
    expect(close(got.g1 as number[], dw)).toBe(true);
  });

  it('grad(f) of a function of the module that calls it: the compiler is given what f needs of the module (trial 25)', async () => {
    // (a directory of its own: Vite empties its output directory)
    const self = await bundle(bundler, 'self.ts', `out-${bundler}-self`);
    const [gx, gg] = JSON.parse(execFileSync(process.execPath, [self], { encoding: 'utf8' })) as [number[], number];
    const loss = (x: number[], g: number) => 1.5 * Math.log(1 + Math.exp(-g * (x[0] * x[0] + x[1] * x[1])));
    const h = 1e-6;
    const dx = [0, 1].map((i) => (loss(i ? [0.5, 0.1 + h] : [0.5 + h, 0.1], 1.5) - loss(i ? [0.5, 0.1 - h] : [0.5 - h, 0.1], 1.5)) / (2 * h));
    const dg = (loss([0.5, 0.1], 1.5 + h) - loss([0.5, 0.1], 1.5 - h)) / (2 * h);
    expect(close(gx, dx) && close([gg], [dg])).toBe(true);
    expect(readFileSync(self, 'utf8')).not.toMatch(/createSourceFile|function compileModule/);
  });

  it('ships no compiler: neither TypeScript nor tsad compiler is in the bundle', () => {
    const text = readFileSync(file, 'utf8');
    expect(text).not.toMatch(/createSourceFile|Debug Failure/); // TypeScript
    expect(text).not.toMatch(/cannot be differentiated|function compileModule|lowerProgram/); // tsad's compiler
    expect(text).toMatch(/class _?Tape\b/); // the runtime
    expect(statSync(file).size).toBeLessThan(40_000);
  });

  it("maps a backward-sweep line of the adjoint to the model's statement", () => {
    const text = readFileSync(file, 'utf8').split('\n');
    const map = new TraceMap(readFileSync(file + '.map', 'utf8'));
    // the adjoint of `s += w[i] * x[i]`: `wb[i] += x[i] * sb` (and `xb[i] += …`) in the backward loop
    // (esbuild renames locals apart: wb3; Vite prints a one-statement loop on one line: the statement's column)
    const increment = /\bwb\d*\[i\] \+= /;
    const line = text.findIndex((l) => increment.test(l));
    expect(line, 'an adjoint increment of wb in the bundle').toBeGreaterThan(0);
    const o = originalPositionFor(map, { line: line + 1, column: text[line].search(increment) });
    expect(o.source).toMatch(/model\.ts$/);
    expect(o.line).toBe(ACCUMULATE_LINE);
  });

  it('turns a diagnostic into a build error at its file:line:col, with the code frame', async () => {
    const err = await bundle(bundler, 'uses-bad.ts').then(
      () => null,
      (e: unknown) => e as Error & { errors?: { text: string; location?: { file: string; line: number } }[]; loc?: { line: number } },
    );
    expect(err, 'the build fails').not.toBeNull();
    const text = `${err!.message}\n${JSON.stringify(err!.errors ?? '')}`;
    expect(text).toContain('bad.ts:2:14');
    expect(text).toContain('Math.random() is non-deterministic');
    expect(text).toContain('return x * Math.random();');
  });
});

describe('the part of a module a function needs (grad(f) of a function of the module calling it)', () => {
  it('keeps what f reaches by name, through other declarations, and blanks the rest where it stands', () => {
    const code = `import { grad } from 'tsad';
import { softplus } from './util.ts';
import { unused } from './other.ts';
const K = 2, x = [1, 2];
type Pair = [number, number];
function scaled(v: number): number { return K * softplus(v); }
function loss(x: Pair, g: number): number { const y: Pair = [x[0], x[1]]; return scaled(g * y[0]) + y[1]; }
console.log(grad(loss)(x, 1));
`;
    const out = neededPart(code, 'app.ts', 'loss');
    const kept = out.split('\n').map((l, i) => (l.trim() ? i + 1 : 0)).filter(Boolean);
    expect(kept).toEqual([2, 4, 5, 6, 7]);
    expect(out.length).toBe(code.length);
    // (the constant declared beside K comes with it; the parameter x names no top-level declaration)
    expect(out.split('\n')[3]).toBe('const K = 2, x = [1, 2];');
    expect(neededPart(code, 'app.ts', 'nothere')).toBe(code);
  });
});

describe('types', () => {
  it("the declarations the plugin wrote type the app's imports exactly", () => {
    const dts = join(dir, 'model.ts.tsad-loss.d.ts');
    expect(existsSync(dts), 'model.ts.tsad-loss.d.ts written by the builds').toBe(true);
    expect(readFileSync(dts, 'utf8')).toMatch(/export function loss_b\(w: number\[\], wb: number\[\], x: number\[\], xb: number\[\], b: number, resultb: number\): number;/);
    const check = (main: string) => {
      writeFileSync(join(dir, 'typed.ts'), main);
      const options: ts.CompilerOptions = { strict: true, noEmit: true, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, target: ts.ScriptTarget.ES2022, allowImportingTsExtensions: true, skipLibCheck: true, types: [] };
      const files = [join(dir, 'typed.ts'), ...readdirSync(dir).filter((f) => f.endsWith('.d.ts')).map((f) => join(dir, f))];
      const program = ts.createProgram(files, options);
      return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    };
    expect(check(MAIN)).toEqual([]);
    const wrong = check("import { loss_b } from './model.ts?tsad=loss';\nconst r: string = loss_b([1], [0], [2], [0], 1, 1);\nloss_b([1], 2);\n");
    expect(wrong.join('\n')).toMatch(/Type 'number' is not assignable to type 'string'/);
    expect(wrong.join('\n')).toMatch(/Expected 6 arguments, but got 2/);
  });
});
