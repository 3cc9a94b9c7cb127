// The same random program as JavaScript, against its TypeScript version's derivatives:
//
//   jsdoc     the program rewritten with its types in JSDoc comments (test/fuzz/jsdoc.ts) and compiled
//             as a `.js` file, as `tsad f.js` compiles it: its primal, tangent, vector tangent and
//             adjoint give bit-identical values to the TypeScript version's on the same inputs
//   plain-js  the program without annotations, as JavaScript's Function.prototype.toString gives it,
//             through the runtime API (jacfwd: the tangents and vector tangent, jacrev: the adjoint,
//             grad for a scalar result; the other functions of the module in `scope`): its Jacobians equal the
//             TypeScript version's by tangents, to rounding (its types come from the arguments' values,
//             so its code may differ)
import ts from 'typescript';
import type { CompileResult } from '../../src/api/compile.js';
import type { LoadedModule } from '../../src/api/load.js';
import { clone, flatten, randomLike, rng } from '../../src/api/values.js';
import { generatedOf, jacobianAt } from '../../src/api/sweeps.js';
import { grad, jacfwd, jacrev } from '../../src/api/runtime.js';
import { zerosLike } from '../../src/runtime/arrays.js';
import type { Finding } from './checks.js';

const show = (v: unknown): string => JSON.stringify(v, (_k, x) => (typeof x === 'number' && !Number.isFinite(x) ? String(x) : x instanceof Float64Array ? Array.from(x) : x)).slice(0, 400);

/** Bit-identical values (NaN equal to NaN; -0 and 0 alike: a merged `xb = e` and `xb += e` differ there). */
function sameValues(a: unknown, b: unknown): boolean {
  const x = flatten(a), y = flatten(b);
  return x.length === y.length && x.every((v, i) => v === y[i] || (v !== v && y[i] !== y[i]));
}

/**
 * Each entry of the TypeScript version called with the JSDoc version's twin on one set of inputs: the
 * primal values, directions drawn once per parameter, a random adjoint seed. Returns what differs.
 */
export function compareJsdoc(ts0: CompileResult, tsMod: LoadedModule, js: CompileResult, jsMod: LoadedModule, head: string, args: unknown[], seed: number): Finding[] {
  const out: Finding[] = [];
  const mine = (r: CompileResult) => r.manifest.filter((m) => m.of === head).map((m) => `${m.name}(${m.params.map((p) => `${p.role}:${p.name}`).join(', ')})`);
  if (mine(ts0).join('; ') !== mine(js).join('; ')) {
    out.push({ prop: 'jsdoc', message: 'the JSDoc-typed version has other derivative functions than the TypeScript one', observed: mine(js).join('; '), expected: mine(ts0).join('; '), args });
    return out;
  }
  const primal = (m: LoadedModule) => {
    const c = clone(args);
    return [(m[head] as (...a: unknown[]) => unknown)(...c), c];
  };
  if (!sameValues(primal(tsMod), primal(jsMod))) out.push({ prop: 'jsdoc', message: `the JSDoc-typed version's primal differs`, observed: show(primal(jsMod)), expected: show(primal(tsMod)), args });
  // (the sweeps of a split adjoint, taking a tape, are checked through f_b)
  for (const e of ts0.manifest.filter((m) => m.of === head && m.params.every((p) => p.role !== 'tape'))) {
    const run = (m: LoadedModule) => {
      const r = rng(seed + 17);
      const c = clone(args);
      const params = e.params.filter((p) => p.role === 'primal').map((p) => p.name);
      const call: unknown[] = [];
      const written: unknown[] = [];
      for (const p of e.params) {
        const j = params.indexOf(p.of ?? p.name);
        if (p.role === 'primal') call.push(c[j]);
        else if (p.role === 'tangent') call.push(randomLike(e.mode === 'vector' ? zerosLike(args[j], 2) : zerosLike(args[j]), r));
        else if (p.role === 'directions') call.push(2);
        else if (p.role === 'adjoint') call.push(written[written.push(randomLike(zerosLike(args[j]), r)) - 1]);
        else if (p.role === 'seed') call.push(randomLike(resultOf(tsMod, head, args), r));
      }
      return { ret: (m[e.name] as (...a: unknown[]) => unknown)(...call), after: c, written };
    };
    const a = run(tsMod), b = run(jsMod);
    if (!sameValues([a.ret, a.after, a.written], [b.ret, b.after, b.written]))
      out.push({ prop: 'jsdoc', message: `the JSDoc-typed version's ${e.mode} ${e.name} differs from the TypeScript version's`, observed: show({ returned: b.ret, adjoints: b.written }), expected: show({ returned: a.ret, adjoints: a.written }), args });
  }
  return out;
}

/** the head's result at `args` (the adjoint's seed is shaped like it) */
const resultOf = (mod: LoadedModule, head: string, args: unknown[]): unknown => (mod[head] as (...a: unknown[]) => unknown)(...clone(args));

/** The module's top-level functions, classes and constants as plain JavaScript, by name (`export` dropped). */
export function loadPlain(source: string): Record<string, unknown> {
  const js = ts.transpileModule(source, { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext } }).outputText;
  const names: string[] = [];
  const body = js
    .replace(/^(?:export )?(function|const|let|class) (\w+)/gm, (_m, kw: string, n: string) => {
      names.push(n);
      return `${kw} ${n}`;
    })
    .replace(/^export \{\};?$/gm, '');
  return new Function(`"use strict";\n${body}\nreturn { ${names.join(', ')} };`)() as Record<string, unknown>;
}

const scale = (m: number[][]) => Math.max(1, ...m.flat().filter(Number.isFinite).map(Math.abs));
const close = (a: number[][], b: number[][]) =>
  a.length === b.length && a.every((row, i) => row.length === b[i].length && row.every((v, j) => Math.abs(v - b[i][j]) <= 1e-9 * scale(b) || (v !== v && b[i][j] !== b[i][j])));

/**
 * The runtime API on the program as plain JavaScript (plain-js above). A refusal of the runtime API
 * (an exception naming tsad) is returned as `refused`, not as a finding: the runtime API types what it
 * reads from the values, and some forms need the declared types (a field that may be absent).
 */
export function comparePlain(ts0: CompileResult, tsMod: LoadedModule, source: string, head: string, params: string[], args: unknown[]): { findings: Finding[]; refused?: string } {
  const of = ts0.of.includes('return') ? undefined : ts0.of;
  if (of === undefined && ts0.of.length !== 1) return { findings: [] }; // (rows from the result and from arguments: not a runtime API form)
  const names = { primal: head, tangent: `${head}_d`, vector: `${head}_dv`, adjoint: `${head}_b` };
  const g = generatedOf(ts0.manifest, ts0.wrt, tsMod, params, args, names, of);
  if (!g.wrt.length) return { findings: [] };
  const want = jacobianAt(g, args, 'forward');
  const plain = loadPlain(source);
  const f = plain[head] as (...a: unknown[]) => unknown;
  const scope = Object.fromEntries(Object.entries(plain).filter(([n]) => n !== head));
  const opts = { wrt: ts0.wrt, scope, ...(of ? { of } : {}) };
  const findings: Finding[] = [];
  try {
    for (const [api, by] of [['jacfwd', jacfwd], ['jacrev', jacrev]] as const) {
      const got = (by as (f: unknown, o: unknown) => (...a: unknown[]) => number[][])(f, opts)(...clone(args));
      if (!close(got, want)) findings.push({ prop: 'plain-js', message: `the runtime API's ${api} on the plain JavaScript differs from the TypeScript version's Jacobian`, observed: show(got), expected: show(want), args });
    }
    if (!of && typeof f(...clone(args)) === 'number') {
      const gr = (grad as (f: unknown, o: unknown) => (...a: unknown[]) => unknown)(f, opts)(...clone(args));
      // (in the arguments' own key order, as the Jacobian's columns; an independent left out has a
      // number in grad's answer and no column in the Jacobian)
      const parts = (ts0.wrt.length === 1 ? [gr] : (gr as unknown[])).filter((_, k) => args[params.indexOf(ts0.wrt[k])] !== undefined);
      const flat = flatten(parts, [], true);
      if (!close([flat], [want[0] ?? []])) findings.push({ prop: 'plain-js', message: "the runtime API's grad on the plain JavaScript differs from the TypeScript version's gradient", observed: show(flat), expected: show(want[0]), args });
    }
  } catch (e) {
    const m = (e as Error)?.message ?? String(e);
    if (/^tsad\b|TsadError/.test(m) || (e as Error)?.name === 'TsadError') return { findings, refused: m.split('\n')[0] };
    findings.push({ prop: 'plain-js', message: `the runtime API threw on the plain JavaScript: ${m.split('\n')[0]}`, args });
  }
  return { findings };
}
