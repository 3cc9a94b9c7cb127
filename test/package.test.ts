// The published package, as a user gets it: built the way `prepare` builds it (tsconfig.build.json, into
// a private folder so that concurrent rebuilds of dist/ cannot disturb it), packed with `npm pack`,
// checked by publint and Are the Types Wrong, installed from the tarball into a fresh project (from the
// npm cache: --prefer-offline, no network needed once `npm ci` has run), and used there:
//   * the `tsad` command on a model file (npx tsad model.ts --head loss -o gen);
//   * the generated module imported from TypeScript and type-checked (tsc --strict, nodenext and bundler
//     resolution), with `tsad` and `tsad/runtime` imported from an ES module and from a CommonJS one;
//   * the runtime API (`grad`) from an ES module (.mjs) and from CommonJS (.cjs, Node's require(esm));
//   * the bundler plugin (`tsad/plugin`), loaded from an ES module, its types checked.

import { execFileSync, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const NPX = process.platform === 'win32' ? 'npx.cmd' : 'npx';
/** Each step spawns npm, tsc or node: about 40 s of CPU in all, minutes of wall time on a loaded machine. */
const SLOW = 300_000;

let work = '';
let tarball = '';
let packed: string[] = [];
let project = '';

function run(cmd: string, args: string[], cwd: string): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });
}

/** Runs a command that must succeed; its output otherwise becomes the failure message. */
function ok(cmd: string, args: string[], cwd: string): string {
  const r = run(cmd, args, cwd);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} (in ${cwd}) exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'tsad-package-test-'));
  // 1. the package folder: package.json, README, LICENSE and the build of src/ only
  const stage = join(work, 'stage');
  mkdirSync(stage);
  for (const f of ['package.json', 'README.md', 'LICENSE']) cpSync(join(ROOT, f), join(stage, f));
  ok(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', join(stage, 'dist/src')], ROOT);
  // 2. the tarball (scripts off: the build above is what `prepare` runs)
  const out = JSON.parse(ok(NPM, ['pack', stage, '--pack-destination', work, '--ignore-scripts', '--json'], work)) as { filename: string; files: { path: string }[] }[];
  tarball = join(work, out[0].filename);
  packed = out[0].files.map((f) => f.path).sort();
  // 3. a fresh project with the tarball installed (typescript comes from the npm cache)
  project = join(work, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  ok(NPM, ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund', '--no-package-lock', '--ignore-scripts'], project);
}, 600_000);

afterAll(() => {
  if (work !== '') rmSync(work, { recursive: true, force: true });
});

describe('npm package', () => {
  it('holds the compiler, runtime and CLI build, README, LICENSE and package.json, and nothing else', () => {
    const outside = packed.filter((p) => !p.startsWith('dist/src/') && !['package.json', 'README.md', 'LICENSE'].includes(p));
    expect(outside).toEqual([]);
    expect(packed.filter((p) => /(^|\/)(test|bench|evals|examples|golden|generated)(\/|$)|\.test\.|gradbench/.test(p))).toEqual([]);
    for (const f of ['dist/src/index.js', 'dist/src/index.d.ts', 'dist/src/runtime/index.js', 'dist/src/runtime/index.d.ts', 'dist/src/plugin/index.js', 'dist/src/plugin/index.d.ts', 'dist/src/cli/main.js', 'LICENSE']) {
      expect(packed).toContain(f);
    }
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };
    for (const file of Object.values(pkg.bin)) expect(packed).toContain(file);
  }, SLOW);

  it('passes publint (strict) and Are the Types Wrong (require(esm) aside, see the comment)', () => {
    ok(process.execPath, [join(ROOT, 'node_modules/publint/src/cli.js'), 'run', tarball, '--strict', '--pack', 'false'], ROOT);
    // One rule off: the package is ES modules only and CommonJS users load it with require(esm)
    // (Node ^20.19 / >=22.12). attw's bundled TypeScript (5.6) predates require(esm) in `--module nodenext`
    // (TypeScript 5.8), so it flags every ESM-only entry point "from CJS"; the CommonJS consumer's types
    // are checked below with the project's TypeScript instead. node10 resolution is checked (typesVersions).
    const attw = run(process.execPath, [join(ROOT, 'node_modules/@arethetypeswrong/cli/dist/index.js'), tarball, '--ignore-rules', 'cjs-resolves-to-esm', '--format', 'table-flipped', '--no-color'], ROOT);
    expect(attw.status, `${attw.stdout}\n${attw.stderr}`).toBe(0);
  }, SLOW);

  it('the tsad command differentiates a file; the generated module type-checks under nodenext and bundler resolution, from ESM and CommonJS', () => {
    writeFileSync(
      join(project, 'model.ts'),
      `export function loss(w: number[], x: number[], bias: number): number {
  let s = bias;
  for (let i = 0; i < w.length; i++) s += w[i] * x[i];
  return Math.log(1 + Math.exp(-s));
}
`,
    );
    ok(NPX, ['--offline', '--no-install', 'tsad', 'model.ts', '--head', 'loss', '-o', 'gen'], project);
    const gen = readFileSync(join(project, 'gen/model_ad.ts'), 'utf8');
    expect(gen).toContain("from 'tsad/runtime'");
    expect(gen).toMatch(/export function loss_b\(/);

    writeFileSync(
      join(project, 'main.ts'),
      `import { loss, loss_b } from './gen/model_ad.js';
import { grad, compile, type CompileResult } from 'tsad';
import { Tape } from 'tsad/runtime';
const w = [0.5, -1], x = [2, 3];
const wb = [0, 0], xb = [0, 0];
const biasb: number = loss_b(w, wb, x, xb, 0.25, 1);
const v: number = loss(w, x, 0.25);
const g = grad((a: number, b: number) => a * b);
const r: CompileResult = compile('export function f(a: number): number { return a * a; }', { head: 'f' });
const t: Tape = new Tape();
export { biasb, v, g, r, t };
`,
    );
    writeFileSync(
      join(project, 'consumer.cts'),
      `import { grad } from 'tsad';
import type { Tape } from 'tsad/runtime';
export const g: (...args: [number]) => unknown = grad((a: number) => a * a);
export type T = Tape;
`,
    );
    const base = { strict: true, noEmit: true, target: 'ES2022', lib: ['ES2022'], types: [], skipLibCheck: true };
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: { ...base, module: 'nodenext', moduleResolution: 'nodenext' }, include: ['main.ts', 'consumer.cts', 'gen'] }));
    writeFileSync(join(project, 'tsconfig.bundler.json'), JSON.stringify({ compilerOptions: { ...base, module: 'esnext', moduleResolution: 'bundler' }, include: ['main.ts', 'gen'] }));
    const tsc = join(project, 'node_modules/typescript/bin/tsc');
    ok(process.execPath, [tsc, '-p', 'tsconfig.json'], project);
    ok(process.execPath, [tsc, '-p', 'tsconfig.bundler.json'], project);
  }, SLOW);

  it('the runtime API (grad) from an ES module and from CommonJS', () => {
    const body = `const f = (w, x) => Math.sin(w * x) + w * w;
const [gw, gx] = [grad(f)(0.5, 2), grad(f, { wrt: [1] })(0.5, 2)];
console.log(JSON.stringify({ gw, gx, pkg: typeof version }));
`;
    writeFileSync(join(project, 'use.mjs'), `import { grad } from 'tsad';\nimport { createRequire } from 'node:module';\nconst { version } = createRequire(import.meta.url)('tsad/package.json');\n${body}`);
    writeFileSync(join(project, 'use.cjs'), `const { grad } = require('tsad');\nconst { version } = require('tsad/package.json');\n${body}`);
    const expected = { gw: 2 * Math.cos(1) + 1, gx: 0.5 * Math.cos(1) };
    for (const file of ['use.mjs', 'use.cjs']) {
      const r = run(process.execPath, [file], project);
      expect(r.status, `${file}: ${r.stderr}`).toBe(0);
      expect(r.stderr, file).toBe('');
      const got = JSON.parse(r.stdout) as { gw: unknown; gx: unknown; pkg: string };
      expect(got.pkg, file).toBe('string');
      const num = (v: unknown): number => (Array.isArray(v) ? Number(v[0]) : Number(v));
      expect(Math.abs(num(got.gw) - expected.gw), `${file} d/dw`).toBeLessThan(1e-12);
      expect(Math.abs(num(got.gx) - expected.gx), `${file} d/dx`).toBeLessThan(1e-12);
    }
    // the CLI's own bin entry is executable through the installed package too
    expect(execFileSync(process.execPath, [join(project, 'node_modules/tsad/dist/src/cli/main.js'), '--help'], { encoding: 'utf8' })).toContain('--head');
  }, SLOW);

  it('the bundler plugin (tsad/plugin) loads and type-checks', () => {
    writeFileSync(join(project, 'plugin.mjs'), `import tsad, { vite, rollup, esbuild } from 'tsad/plugin';\nconsole.log([typeof tsad.vite, typeof vite, typeof rollup, typeof esbuild, esbuild().name].join(' '));\n`);
    const r = run(process.execPath, ['plugin.mjs'], project);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('function function function function tsad');
    writeFileSync(join(project, 'plugin-types.ts'), `import { rollup, type TsadPluginOptions } from 'tsad/plugin';\nconst options: TsadPluginOptions = { dts: false, runtime: 'tsad/runtime' };\nexport const plugin = rollup(options);\n`);
    const base = { strict: true, noEmit: true, target: 'ES2022', lib: ['ES2022'], types: [], skipLibCheck: true, module: 'nodenext', moduleResolution: 'nodenext' };
    writeFileSync(join(project, 'tsconfig.plugin.json'), JSON.stringify({ compilerOptions: base, files: ['plugin-types.ts'] }));
    ok(process.execPath, [join(project, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.plugin.json'], project);
  }, SLOW);
});
