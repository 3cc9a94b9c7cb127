// The compiler runs in a browser: bundled by esbuild for the browser platform it needs no Node built-in,
// and evaluated in a bare `node:vm` context (no require, process, fs, Buffer) it compiles, reports
// located diagnostics, and its generated code and runtime API work.
import * as esbuild from 'esbuild';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const NODE_BUILTINS = new Set(['fs', 'path', 'os', 'crypto', 'url', 'util', 'module', 'child_process', 'perf_hooks', 'inspector', 'worker_threads', 'stream', 'buffer', 'events', 'vm']);

interface Bundled {
  compile: (src: string | Record<string, string>, opts: Record<string, unknown>) => {
    code: string;
    diagnostics: { file: string; line: number; col: number; message: string; hint?: string; frame?: string }[];
    manifest: { name: string; mode: string }[];
  };
  loadGenerated: (code: string) => Record<string, (...a: unknown[]) => unknown>;
  grad: (f: unknown, opts?: unknown) => (...args: unknown[]) => unknown;
  formatDiagnostic: (d: unknown) => string;
  setLibReader: (read: (name: string) => string | undefined) => void;
}

let iife: esbuild.BuildResult<{ write: false; metafile: true }>;
let tsad: Bundled;
let context: vm.Context;
let probe: string[];
let evalMs: number;

beforeAll(async () => {
  iife = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: ['src/index.ts'],
    bundle: true,
    platform: 'browser',
    format: 'iife',
    globalName: 'tsad',
    target: 'es2020',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  context = vm.createContext({ console, TextEncoder, TextDecoder });
  probe = [...(vm.runInContext('[typeof require, typeof process, typeof module, typeof Buffer, typeof fs]', context) as string[])];
  const t0 = performance.now();
  vm.runInContext(iife.outputFiles[0].text, context, { filename: 'tsad.browser.js' });
  evalMs = performance.now() - t0;
  tsad = context.tsad as Bundled;
  // the page embedding the compiler hands it TypeScript's lib files (here read beside the test)
  const libDir = resolve(ROOT, 'node_modules/typescript/lib');
  tsad.setLibReader((name) => (existsSync(resolve(libDir, name)) ? readFileSync(resolve(libDir, name), 'utf8') : undefined));
}, 60_000);

describe('browser bundle', () => {
  it('builds as an ES module for the browser platform with no errors', async () => {
    const r = await esbuild.build({
      absWorkingDir: ROOT,
      entryPoints: ['src/index.ts'],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    expect(r.errors).toEqual([]);
    expect(r.warnings.map((w) => w.text)).toEqual([]);
    expect(r.outputFiles[0].text.length).toBeGreaterThan(1_000_000); // TypeScript is inside
  });

  it("tsad's own modules import no Node built-in", () => {
    const offending: string[] = [];
    const own = Object.keys(iife.metafile.inputs).filter((f) => f.startsWith('src/'));
    expect(own.length).toBeGreaterThan(10);
    for (const [file, input] of Object.entries(iife.metafile.inputs)) {
      if (!file.startsWith('src/')) continue;
      for (const imp of input.imports) {
        const p = imp.path.replace(/^\(disabled\):/, '');
        if (imp.path.startsWith('(disabled):') || p.startsWith('node:') || NODE_BUILTINS.has(p) || imp.external) offending.push(`${file} → ${imp.path}`);
      }
    }
    expect(offending).toEqual([]);
    // the only disabled (Node-only) modules are TypeScript's own optional ones
    const importers = Object.entries(iife.metafile.inputs)
      .filter(([, input]) => input.imports.some((i) => i.path.startsWith('(disabled):')))
      .map(([file]) => file);
    expect(importers.filter((f) => !/(^|\/)node_modules\/typescript\//.test(f))).toEqual([]);
  });

  it('evaluates in a bare vm context (no require, process, fs)', () => {
    expect(probe).toEqual(['undefined', 'undefined', 'undefined', 'undefined', 'undefined']);
    expect(iife.errors).toEqual([]);
    expect(typeof tsad.compile).toBe('function');
    expect(evalMs).toBeLessThan(10_000);
    expect(vm.runInContext('typeof process', context)).toBe('undefined'); // nothing Node-like was defined
  });

  it('without the lib files (no reader given), compile() says how to provide them', () => {
    const bare = vm.createContext({ console, TextEncoder, TextDecoder });
    vm.runInContext(iife.outputFiles[0].text, bare, { filename: 'tsad.browser.js' });
    const fresh = bare.tsad as Bundled;
    expect(() => fresh.compile('export function f(x: number): number { return x * x; }', { head: 'f' })).toThrow(/standard library .* setLibReader/);
  });

  it('compile() produces every derivative and no diagnostics', () => {
    const r = tsad.compile(
      `export function f(x: number[], y: number): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += Math.sin(x[i]) * y;
  return s * s;
}
`,
      { head: 'f' },
    );
    expect(r.diagnostics).toEqual([]);
    for (const fn of ['f_d', 'f_dv', 'f_fwd', 'f_bwd', 'f_b']) expect(r.code).toMatch(new RegExp(`export function ${fn}\\(`));
    expect([...r.manifest].map((m) => m.name)).toEqual(expect.arrayContaining(['f_d', 'f_dv', 'f_b']));
  });

  it('generated JavaScript loads and is right, inside the vm', () => {
    const r = tsad.compile('export function g(x: number[]): number { let s = 0; for (let i = 0; i < x.length; i++) s += x[i] * x[i] * x[i]; return s; }', {
      head: 'g',
      js: true,
      runtimeImport: null,
    });
    expect(r.diagnostics).toEqual([]);
    const mod = tsad.loadGenerated(r.code);
    const x = vm.runInContext('[1, 2, -1]', context) as number[];
    const xb = vm.runInContext('[0, 0, 0]', context) as number[];
    mod.g_b(x, xb, 1);
    expect([...xb]).toEqual([3, 12, 3]);
    const [v, t] = mod.g_d(x, vm.runInContext('[1, 1, 1]', context)) as [number, number];
    expect(v).toBe(8);
    expect(t).toBe(18);
  });

  it('several files with imports, through the in-memory host', () => {
    const r = tsad.compile(
      {
        'a.ts': "import { sq } from './b.js';\nexport function f(x: number): number { return sq(Math.exp(x)); }\n",
        'b.ts': 'export function sq(t: number): number { return t * t; }\n',
      },
      { head: 'f', modes: ['reverse'] },
    );
    expect(r.diagnostics).toEqual([]);
    expect(r.code).toMatch(/function sq_bwd\(/);
  });

  it('located diagnostics with a code frame', () => {
    const r = tsad.compile('export function f(x: number): number {\n  return [x, 1].sort()[0];\n}\n', { head: 'f' });
    expect(r.diagnostics.length).toBeGreaterThan(0);
    const d = r.diagnostics[0];
    expect([d.file, d.line]).toEqual(['input.ts', 2]);
    expect(d.frame).toMatch(/> 2 \|/);
    expect(d.hint).toMatch(/a - b/);
    expect(tsad.formatDiagnostic(d)).toMatch(/^input\.ts:2:\d+: error: /);
  });

  it('the runtime API (new Function) works in the vm', () => {
    const f = vm.runInContext('(function (x, y) { return x[0] * x[1] * y + Math.sin(y); })', context);
    const g = tsad.grad(f, { wrt: [0, 1] })(vm.runInContext('[2, 3]', context), 0.5) as [number[], number];
    expect([...g[0]]).toEqual([1.5, 1]);
    expect(g[1]).toBeCloseTo(6 + Math.cos(0.5), 14);
  });
});
