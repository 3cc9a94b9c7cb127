// Every example of README.md runs here, so a README that drifts from the code fails the suite.
// Each fenced block is preceded by a marker comment saying how to run it:
//   <!-- test: file NAME [head=F] -->  the block is written to NAME in a scratch project; with head=F it
//                                      is also compiled by compile() and checked numerically (checkCompiled)
//   <!-- test: cli [exit=N] [node>=X.Y] -->  each line is a command run in the scratch project (`tsad` is
//                                      the built CLI, `npx tsc` the repository's TypeScript); exit status N
//   <!-- test: output -->              the previous cli block's last output, `…` matching anything
//   <!-- test: api -->                 transpiled and executed with `tsad` and `tsad/runtime` mapped to the
//                                      repository's modules; `console.log(…); // → value` compares values
//   <!-- test: pending REASON -->      documents behaviour not in this branch yet: reported as skipped
//   <!-- test: no REASON -->           not runnable here (installs, recursive npm scripts): says why
// and the troubleshooting table (<!-- test: diagnostics -->) is compiled row by row against its messages.
// Blocks share one scratch project, in document order. A block without a marker fails the test.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tsad from '../src/index.js';
import * as runtime from '../src/runtime/index.js';
import { randomArgs } from '../src/api/shapes.js';
import { ensureDistBuilt } from './support/build.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'dist/src/cli/main.js');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

interface Block {
  /** 1-based line of the opening fence */
  line: number;
  lang: string;
  text: string;
  kind: string;
  args: string[];
}

/** The fenced blocks of the README with the marker comment on the line before each (if any). */
function blocks(md: string): Block[] {
  const lines = md.split('\n');
  const out: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(```+)(\S*)\s*$/.exec(lines[i]);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== open[1]; i++) body.push(lines[i]);
    const marker = /^<!-- test: (.*?) -->$/.exec(lines[start - 1] ?? '');
    const words = marker ? marker[1].split(/\s+/) : ['unmarked'];
    out.push({ line: start + 1, lang: open[2], text: body.join('\n') + '\n', kind: words[0], args: words.slice(1) });
  }
  return out;
}

function option(b: Block, key: string): string | undefined {
  const a = b.args.find((x) => x.startsWith(key + '='));
  return a?.slice(key.length + 1);
}

// ---------------------------------------------------------------- the scratch project

let dir: string;

// (a build on a loaded machine takes longer than vitest's default hook timeout)
beforeAll(() => {
  ensureDistBuilt();
  dir = mkdtempSync(join(tmpdir(), 'tsad-readme-'));
  // the project depends on tsad as an installed package would: node_modules/tsad is this repository
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(ROOT, join(dir, 'node_modules/tsad'), 'dir');
  symlinkSync(join(ROOT, 'node_modules/@types'), join(dir, 'node_modules/@types'), 'dir');
  // the bundler plugin's example builds with esbuild, as a project that installed it would
  symlinkSync(join(ROOT, 'node_modules/esbuild'), join(dir, 'node_modules/esbuild'), 'dir');
  // the README's project is an ES-module package, as its text says
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
}, 300_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Run {
  status: number | null;
  out: string;
}

/** A README command line split into words (single and double quotes group). */
function words(cmd: string): string[] {
  return [...cmd.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]);
}

function run(cmd: string): Promise<Run> {
  let w = words(cmd);
  if (w[0] === 'npx') w = w.slice(1);
  const prog = w[0] === 'tsad' ? [CLI] : w[0] === 'tsc' ? [TSC] : w[0] === 'node' ? [] : null;
  if (!prog) throw new Error(`README command '${cmd}': only tsad, tsc and node commands are run by the test`);
  return new Promise((res) => {
    execFile(process.execPath, [...prog, ...w.slice(1)], { cwd: dir, encoding: 'utf8', timeout: 60_000 }, (err, stdout, stderr) => {
      res({ status: err ? (typeof err.code === 'number' ? err.code : null) : 0, out: stdout + stderr });
    });
  });
}

/** Command lines of a shell block: comments after `#` dropped, blank lines skipped. */
function commands(text: string): string[] {
  return text.split('\n').flatMap((l) => l.replace(/\s#\s.*$/, '').replace(/^#.*$/, '').split(' && ')).map((c) => c.trim()).filter(Boolean);
}

function nodeAtLeast(spec: string): boolean {
  const [a, b] = spec.split('.').map(Number);
  const [x, y] = process.versions.node.split('.').map(Number);
  return x > a || (x === a && y >= (b ?? 0));
}

// ---------------------------------------------------------------- comparing printed values

/** How `console.log` prints in the README's `// →` comments: arrays in brackets, numbers in full. */
function show(v: unknown): string {
  if (typeof v === 'number') return String(v);
  if (Array.isArray(v) || ArrayBuffer.isView(v)) return `[${Array.from(v as ArrayLike<unknown>, show).join(', ')}]`;
  if (v && typeof v === 'object') return `{ ${Object.entries(v).map(([k, x]) => `${k}: ${show(x)}`).join(', ')} }`;
  return String(v);
}

const NUM = /(?<![\w.])-?\d+(?:\.\d+)?(?:e[-+]?\d+)?(?![\w.])/g;

/** Does the printed `actual` match the README's `expected`, each number to the digits it shows? */
function matches(actual: string, expected: string): boolean {
  const skel = (s: string) => s.replace(NUM, '#').replace(/\s+/g, '');
  if (skel(actual) !== skel(expected)) return false;
  const a = actual.match(NUM) ?? [];
  const e = expected.match(NUM) ?? [];
  return e.every((es, i) => {
    const [mant, exp] = es.split('e');
    const decimals = mant.split('.')[1]?.length ?? 0;
    const tol = 0.5 * 10 ** (Number(exp ?? 0) - decimals) * (1 + 1e-9);
    return Math.abs(Number(a[i]) - Number(es)) <= tol;
  });
}

/** Output lines against a README output block: `…` matches any text, surrounding blanks ignored. */
function outputMatches(actual: string, expected: string): boolean {
  const norm = (s: string) => s.split('\n').map((l) => l.trimEnd()).join('\n').trim();
  const parts = norm(expected).split('…').map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('[\\s\\S]*')}$`).test(norm(actual));
}

/** Runs an API block: CommonJS from TypeScript, `require` of the package names mapped to this repository. */
function runApi(text: string): void {
  const js = ts.transpileModule(text, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } }).outputText;
  const modules: Record<string, unknown> = { tsad, 'tsad/runtime': runtime };
  const require = (name: string) => {
    if (!(name in modules)) throw new Error(`README example imports '${name}': only tsad and tsad/runtime are mapped`);
    return modules[name];
  };
  const logged: string[] = [];
  const console = { log: (...xs: unknown[]) => logged.push(xs.map(show).join(' ')) };
  new Function('require', 'exports', 'console', js)(require, {}, console);
  // expectations in source order: `console.log(…); // → value`
  const expected = text.split('\n').filter((l) => /console\.log\(/.test(l)).map((l) => /\/\/ → (.*?)(?:\s{3,}.*)?$/.exec(l)?.[1]); // 3+ spaces start a remark
  expect(logged.length, 'console.log calls made').toBe(expected.length);
  expected.forEach((e, i) => {
    expect(e, `console.log #${i + 1} needs a '// → value' comment`).toBeDefined();
    expect(matches(logged[i], e!), `console.log #${i + 1}: printed ${logged[i]}, README says ${e}`).toBe(true);
  });
}

// ---------------------------------------------------------------- the troubleshooting table

interface Row {
  wrote: string;
  says: string;
}

function troubleshootingRows(md: string): Row[] {
  const at = md.indexOf('<!-- test: diagnostics -->');
  if (at < 0) return [];
  const rows: Row[] = [];
  for (const l of md.slice(at).split('\n').slice(1)) {
    if (!l.startsWith('|')) {
      if (rows.length) break;
      continue;
    }
    const cells = l.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim());
    const code = /^`(.*)`$/.exec(cells[0]);
    if (!code) continue; // header and rule
    rows.push({ wrote: code[1], says: cells[1].replace(/`/g, '').replace(/\\\|/g, '|') });
  }
  return rows;
}

/** The program a row's "you wrote" stands for: a body statement of f, a module-level statement, or options. */
function rowProgram(wrote: string): { src: string; opts: tsad.CompileOptions } {
  const opts: tsad.CompileOptions = { head: 'f' };
  let top = '';
  let body = '';
  const m = /^--(\w+) (\S+)$/.exec(wrote);
  if (m) (opts as unknown as Record<string, unknown>)[m[1]] = m[1] === 'head' ? m[2] : m[2].split(',');
  else if (/^(let|class|enum|var) [^;]*;?$/.test(wrote)) top = wrote; // one declaration: at module level
  else body = wrote;
  return { src: `${top}\nexport function f(x: number, xs: number[]): number {\n  ${body}\n  return x;\n}\n`, opts };
}

// ---------------------------------------------------------------- the tests

const all = blocks(README);

describe('README.md', () => {
  it('has a test marker before every fenced block and is at most 300 lines', () => {
    const known = ['file', 'cli', 'output', 'api', 'pending', 'no'];
    for (const b of all) expect(known, `README.md:${b.line} (${b.lang}) has no known <!-- test: … --> marker`).toContain(b.kind);
    expect(README.replace(/\n$/, '').split('\n').length).toBeLessThanOrEqual(300);
  });

  it('runs its examples in order', { timeout: 120_000 }, async () => {
    let last: Run | null = null;
    for (const b of all) {
      const where = `README.md:${b.line}`;
      if (b.kind === 'file') {
        const name = b.args[0];
        mkdirSync(dirname(join(dir, name)), { recursive: true });
        writeFileSync(join(dir, name), b.text);
        const head = option(b, 'head');
        if (head) {
          const r = tsad.compile({ [name]: b.text }, { head, js: true, runtimeImport: null });
          expect(r.diagnostics.map(tsad.formatDiagnostic), where).toEqual([]);
          const params = tsad.frontEnd({ [name]: b.text }).funcs.get(head)!.params;
          for (const seed of [1, 2]) {
            const rep = tsad.checkCompiled(r, r.code, head, randomArgs(params.map((p) => p.ty), seed));
            expect(rep.messages, `${where}: ${head} checked at seed ${seed}`).toEqual([]);
            expect(rep.ok, where).toBe(true);
          }
        }
      } else if (b.kind === 'cli') {
        const need = b.args.find((a) => a.startsWith('node>='));
        if (need && !nodeAtLeast(need.slice(6))) continue;
        for (const cmd of commands(b.text)) {
          last = await run(cmd);
          expect(last.status, `${where}: \`${cmd}\` exited ${last.status}:\n${last.out}`).toBe(Number(option(b, 'exit') ?? 0));
        }
      } else if (b.kind === 'output') {
        expect(last, `${where}: an output block needs a cli block before it`).not.toBeNull();
        expect(outputMatches(last!.out, b.text), `${where}: the command printed\n${last!.out}`).toBe(true);
      } else if (b.kind === 'api') {
        try {
          runApi(b.text);
        } catch (e) {
          throw new Error(`${where}: ${(e as Error).message}`);
        }
      }
    }
  });

  const rows = troubleshootingRows(README);
  it('troubleshooting: each row\'s input gives the message it shows', () => {
    expect(rows.length).toBeGreaterThanOrEqual(10);
    for (const row of rows) {
      const { src, opts } = rowProgram(row.wrote);
      const d = tsad.compile(src, opts).diagnostics;
      expect(d.length, `\`${row.wrote}\` compiled without a diagnostic`).toBeGreaterThan(0);
      const parts = row.says.split('…').map((p) => p.trim()).filter(Boolean);
      const msg = d[0].message.replace(/`/g, '');
      let from = 0;
      for (const p of parts) {
        const k = msg.indexOf(p, from);
        expect(k, `\`${row.wrote}\`: tsad says "${msg}", README says "${row.says}"`).toBeGreaterThanOrEqual(0);
        from = k + p.length;
      }
    }
  });

  const pending = all.filter((b) => b.kind === 'pending');
  if (pending.length) it.skip.each(pending.map((b) => [`README.md:${b.line}: ${b.args.join(' ')}`]))('pending: %s', () => {});
});

// the comparison helpers themselves: a README number printed to fewer digits matches, a wrong one does not
describe('README value comparison', () => {
  it('matches numbers to the digits shown and nothing else', () => {
    expect(matches('[0.479425538604203, 1.7551651237807455]', '[0.4794, 1.7552]')).toBe(true);
    expect(matches('[0.479425538604203, 1.7551651237807455]', '[0.4794, 1.7562]')).toBe(false);
    expect(matches('[2, 4, 6]', '[2, 4]')).toBe(false);
    expect(matches('14 [2, 4, 6]', '14 [2, 4, 6]')).toBe(true);
    expect(outputMatches('a\nerror 1e-9 x\ncheck passed\n', 'a\n…\ncheck passed')).toBe(true);
    expect(outputMatches('a\ncheck FAILED\n', 'a\n…\ncheck passed')).toBe(false);
  });
});
