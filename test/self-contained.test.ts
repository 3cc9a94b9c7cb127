// The repository is self-contained: no source under src/, test/, bench/, evals/ or examples/ names a
// path outside the repository, so a fresh clone builds and passes its tests with nothing beside it.
// Every string literal (and template literal piece) and every comment of every TypeScript/JavaScript
// file there is checked for
//   * a folder known to live only beside a workspace (the reference folder above the root, its evals and
//     seeds subfolders, the workspace root);
//   * an absolute path (`/usr/...`, `C:\...`): a file that exists on one machine only;
//   * a relative path that climbs above the repository root from the file's own folder (import
//     specifiers, `new URL('../..', import.meta.url)`, the literal arguments of `join`/`resolve`).
// Comments are held to the first rule only (they may mention `/tmp` or `a/b`), and the few entries of
// ALLOWED may name an outside path in a comment to say where something came from.

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SCANNED = ['src', 'test', 'bench', 'evals', 'examples', 'playground'];
/** Folders that are build output or caches, never committed. */
const SKIPPED = new Set(['node_modules', 'dist', 'generated']);
/** This file spells out the patterns it looks for (its probe below checks them instead). */
const SELF = fileURLToPath(import.meta.url);
const CODE = /\.(?:[cm]?ts|[cm]?js)$/;

/** Paths that only exist beside a workspace, never in a clone. */
// (built from its parts, so that this file itself spells no outside path)
const OUTSIDE_NAME = ['sha', 'red'].join('');
const OUTSIDE = new RegExp(`(?<![\\w.-])\\.\\./${OUTSIDE_NAME}\\b|\\b${OUTSIDE_NAME}/(?:evals|seeds)\\b|/work/`);
/** A string that is an absolute file path as a whole (POSIX or Windows). */
const ABSOLUTE = /^(?:\/(?!\/)[\w.-]+(?:\/[\w.-]*)*|[A-Za-z]:[\\/].*)$/;

interface Allowed {
  /** repository-relative file, with forward slashes */
  file: string;
  /** the text the finding quotes */
  text: string;
  /** why it is not a read of an outside path */
  why: string;
}

const ALLOWED: Allowed[] = [
  {
    file: 'src/api/infer.ts',
    text: '/m.ts',
    why: "the name of the in-memory source file given to TypeScript's compiler host, never on disk",
  },
  {
    file: 'src/api/locals.ts',
    text: '/m.ts',
    why: "the name of the in-memory source file given to TypeScript's compiler host, never on disk",
  },
  {
    file: 'src/frontend/lib.ts',
    text: '/__tsad_lib.d.ts',
    why: "the name of the in-memory declaration file given to TypeScript's compiler host, never on disk",
  },
  {
    file: 'src/frontend/stdlib.ts',
    text: '/__tsad_stdlib',
    why: "the virtual directory the compiler host serves TypeScript's lib files from (read from the typescript package), never on disk",
  },
  {
    file: 'src/frontend/stdlib.ts',
    text: '/node_modules/typescript/lib',
    why: 'a suffix joined to the folders above a bundled tsad, where the typescript package is looked for',
  },
  {
    file: 'src/cli/main.ts',
    text: '../../../package.json',
    why: "resolved at run time from the built CLI (dist/src/cli/main.js): the package's own package.json, for --version",
  },
  {
    file: 'test/playground.test.ts',
    text: '/usr/bin/chromium',
    why: "Debian's chromium package, the browser the playground test drives: without it the test is skipped (fails under CI=true)",
  },
  {
    file: 'test/plugin-app.test.ts',
    text: '/usr/bin/chromium',
    why: "Debian's chromium package, the browser the example app's test fits its model in: without it the test is skipped (fails under CI=true)",
  },
  {
    file: 'bench/run.ts',
    text: '../../src/runtime/index.js',
    why: 'the runtime import written into the generated modules, which live two folders deep (bench/generated/<name>/)',
  },
];

interface Finding {
  file: string;
  line: number;
  text: string;
  rule: string;
}

function codeFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) {
      if (!SKIPPED.has(e.name)) out.push(...codeFiles(join(dir, e.name)));
    } else if (e.isFile() && CODE.test(e.name) && !e.name.endsWith('.d.ts')) {
      out.push(join(dir, e.name));
    }
  }
  return out;
}

/** Does `rel`, resolved from the folder `fromDir`, land outside ROOT? */
function climbsOut(fromDir: string, rel: string): boolean {
  const r = relative(ROOT, resolve(fromDir, rel));
  return r === '..' || r.startsWith(`..${sep}`);
}

const RELATIVE = /^\.\.?(?:\/|$)/;

/** The literal arguments of a path.join/resolve call, from the first literal on, joined (or undefined). */
function pathCallSuffix(call: ts.CallExpression): { text: string; first: ts.Node } | undefined {
  const callee = call.expression;
  const name = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : '';
  if (name !== 'join' && name !== 'resolve') return undefined;
  const i = call.arguments.findIndex((a) => ts.isStringLiteralLike(a));
  if (i < 0) return undefined;
  const parts: string[] = [];
  for (const a of call.arguments.slice(i)) {
    if (!ts.isStringLiteralLike(a)) break;
    parts.push(a.text);
  }
  return { text: parts.join('/'), first: call.arguments[i] };
}

function scan(file: string): Finding[] {
  return scanSource(file, readFileSync(file, 'utf8'));
}

/** The findings of one file, given its text. */
function scanSource(file: string, text: string): Finding[] {
  const rel = relative(ROOT, file).split(sep).join('/');
  const dir = dirname(file);
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('js') ? ts.ScriptKind.JS : ts.ScriptKind.TS);
  const found: Finding[] = [];
  const add = (pos: number, quoted: string, rule: string): void => {
    found.push({ file: rel, line: sf.getLineAndCharacterOfPosition(pos).line + 1, text: quoted, rule });
  };
  const inPathCall = new Set<ts.Node>();

  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const s = pathCallSuffix(node);
      if (s !== undefined) {
        for (const a of node.arguments) if (ts.isStringLiteralLike(a)) inPathCall.add(a);
        if (RELATIVE.test(s.text) && climbsOut(dir, s.text)) add(s.first.getStart(sf), s.text, 'climbs above the repository root');
      }
    }
    if (ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      const t = node.text;
      const at = node.getStart(sf);
      const m = OUTSIDE.exec(t);
      if (m !== null) add(at, m[0], 'names a folder outside the repository');
      if (ABSOLUTE.test(t)) add(at, t, 'absolute path');
      if (!inPathCall.has(node) && RELATIVE.test(t) && climbsOut(dir, t)) add(at, t, 'climbs above the repository root');
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);

  // comments: the leading and trailing comment ranges of every token, each range once
  const seen = new Set<number>();
  const comment = (r: ts.CommentRange): void => {
    if (seen.has(r.pos)) return;
    seen.add(r.pos);
    const body = text.slice(r.pos, r.end);
    const re = new RegExp(OUTSIDE.source, 'g');
    for (const m of body.matchAll(re)) {
      // quote the whole path the match belongs to, so the allow-list names it exactly
      const start = r.pos + (m.index ?? 0);
      const whole = /^[^\s'"`()]*/.exec(text.slice(start))?.[0] ?? m[0];
      add(start, whole, 'comment names a folder outside the repository');
    }
  };
  const walkComments = (node: ts.Node): void => {
    for (const r of ts.getLeadingCommentRanges(text, node.getFullStart()) ?? []) comment(r);
    for (const r of ts.getTrailingCommentRanges(text, node.getEnd()) ?? []) comment(r);
    ts.forEachChild(node, walkComments);
  };
  walkComments(sf);
  for (const r of ts.getLeadingCommentRanges(text, sf.endOfFileToken.getFullStart()) ?? []) comment(r);
  return found.sort((p, q) => p.line - q.line);
}

function isAllowed(f: Finding): boolean {
  return ALLOWED.some((a) => a.file === f.file && f.text.includes(a.text));
}

const files = SCANNED.flatMap((d) => codeFiles(join(ROOT, d))).filter((f) => f !== SELF);
const findings = files.flatMap(scan);

describe('self-contained repository', () => {
  it('scans the sources (sanity: the scanner sees the files and their literals)', () => {
    expect(files.length).toBeGreaterThan(100);
    // the rules catch what they are for: a probe file (in memory only), scanned like the others
    const probe = join(ROOT, 'test', '__probe__.ts');
    // (the outside folder's name is put together here, so that this file itself names no outside path)
    const shared = ['..', OUTSIDE_NAME].join('/');
    const src = [
      `// golden files from ${shared}/evals/golden`,
      `const a = resolve(repoRoot, '${shared}/evals');`,
      `const b = '/work/${shared.slice(3)}/evals/golden';`,
      "const c = readFileSync('/etc/hosts');",
      "import x from '../../outside.js';",
      "const d = join(here, '..', '..', 'x');",
      "const e = join(here, '..', 'src');",
      "const f = 'a/b';",
    ].join('\n');
    const found = scanSource(probe, src);
    expect(found.map((f) => `${f.line}: ${f.rule}`)).toEqual([
      '1: comment names a folder outside the repository',
      '2: names a folder outside the repository',
      '3: names a folder outside the repository',
      '3: absolute path',
      '4: absolute path',
      '5: climbs above the repository root',
      '6: climbs above the repository root',
    ]);
  });

  it('no source reads a path outside the repository', () => {
    const bad = findings.filter((f) => !isAllowed(f)).map((f) => `${f.file}:${f.line}: ${f.rule}: ${f.text}`);
    expect(bad).toEqual([]);
  });

  it('every allow-list entry is still needed', () => {
    const stale = ALLOWED.filter((a) => !findings.some((f) => f.file === a.file && f.text.includes(a.text)));
    expect(stale).toEqual([]);
  });
});
