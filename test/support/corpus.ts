// Shared by the corpus tests: reading a case's sources, drawing its arguments, compiling and checking.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile, frontEnd, type CompileOptions, type CompileResult } from '../../src/api/compile.js';
import { rng } from '../../src/api/values.js';
import type { ArgSpec, CorpusCase } from '../corpus/types.js';

export const CORPUS_SRC = join(dirname(fileURLToPath(import.meta.url)), '..', 'corpus', 'src');

/** The case's module and every corpus module it imports, transitively (`dir`: where the corpus sources are). */
export function caseSources(file: string, dir = CORPUS_SRC): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (f: string) => {
    if (out[f] !== undefined) return;
    const text = readFileSync(join(dir, f), 'utf8');
    out[f] = text;
    for (const m of text.matchAll(/from '\.\/([\w-]+)\.js'/g)) visit(`${m[1]}.ts`);
  };
  visit(file);
  return out;
}

export function drawArg(spec: ArgSpec, r: () => number): unknown {
  const u = (lo: number, hi: number) => lo + (hi - lo) * r();
  switch (spec.kind) {
    case 'num':
      return u(spec.lo, spec.hi);
    case 'int':
    case 'bool':
    case 'str':
      return spec.value;
    case 'vec': {
      const a = Array.from({ length: spec.n }, () => u(spec.lo, spec.hi));
      return spec.typed ? Float64Array.from(a) : a;
    }
    case 'mat':
      return Array.from({ length: spec.rows }, () => Array.from({ length: spec.cols }, () => u(spec.lo, spec.hi)));
    case 'tuple':
      return Array.from({ length: spec.n }, () => u(spec.lo, spec.hi));
    case 'list':
      return Array.from({ length: spec.n }, () => drawArg(spec.of, r));
    case 'index':
      return Array.from({ length: spec.n }, (_, k) => Math.floor(r() * spec.hi[k % spec.hi.length]));
    case 'absent':
      return undefined;
    case 'obj': {
      const o: Record<string, unknown> = {};
      // an absent field is left out (not set to undefined), as a caller omits an optional field
      for (const [k, s] of Object.entries(spec.fields)) if (s.kind !== 'absent') o[k] = drawArg(s, r);
      return o;
    }
  }
}

export function drawArgs(c: CorpusCase, seed: number): unknown[] {
  const r = rng(seed);
  return c.args.map((s) => drawArg(s, r));
}

function carriesFloats(s: ArgSpec): boolean {
  return s.kind === 'num' || s.kind === 'vec' || s.kind === 'mat' || s.kind === 'tuple' || (s.kind === 'obj' && Object.values(s.fields).some(carriesFloats)) || (s.kind === 'list' && carriesFloats(s.of));
}

/** Parameter names of the head, in order, from its declaration. */
export function headParams(src: string, head: string): string[] {
  const m = new RegExp(`(?:function\\s+${head}\\s*\\(|const\\s+${head}\\s*=\\s*\\()([^)]*)\\)`).exec(src);
  if (!m) throw new Error(`cannot find ${head}`);
  return m[1].split(',').map((p) => p.trim().split(/[:=?\s]/)[0]).filter(Boolean);
}

/** the head's parameter names per case, found once (a case compiled at several levels asks again) */
const paramsOfCase = new Map<string, string[]>();

function caseParams(c: CorpusCase, files: Record<string, string>): string[] {
  const key = `${c.file}:${c.head}`;
  let params = paramsOfCase.get(key);
  if (params) return params;
  try {
    params = frontEnd(files).funcs.get(c.head)?.params.map((p) => p.name) ?? headParams(files[c.file], c.head);
  } catch {
    params = headParams(files[c.file], c.head);
  }
  paramsOfCase.set(key, params);
  return params;
}

/** `files`: the case's sources, or an edited copy of them (test/reuse.test.ts) */
export function compileCase(c: CorpusCase, extra: Partial<CompileOptions> = {}, files = caseSources(c.file)): CompileResult {
  const params = caseParams(c, files);
  const wrt = c.wrt ?? params.filter((_, i) => c.args[i] && carriesFloats(c.args[i]));
  const outputs = (c as CorpusCase & { of?: string[] }).of;
  return compile(files, { head: c.head, wrt, js: true, runtimeImport: null, ...(outputs ? { of: outputs } : {}), ...extra });
}
