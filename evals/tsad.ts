// Derivative plumbing shared by the evals' derivatives.ts modules: the objective sources are compiled
// with tsad at first use (cached per configuration), loaded in-process, and the generated functions
// are looked up by name with their parameter lists checked against the compiler's manifest, so that
// a change in the generated calling convention fails loudly instead of silently mis-binding arguments.
//
// Nothing here computes a derivative by hand: every derivative comes from tsad-generated code.
// Nested derivatives (kmeans' Hessian diagonal, particle, saddle) are obtained by compiling the
// TypeScript that tsad generated for the inner derivative once more (source transformation applied
// to its own output).

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile, type CompileOptions, type CompileResult, type ManifestEntry } from '../src/api/compile.js';
import { loadGenerated, type LoadedModule } from '../src/api/load.js';
import { formatDiagnostic } from '../src/frontend/diagnostics.js';
import { repoRoot } from './paths.js';

/** The text of evals/<evalName>/<file> (default objective.ts), found next to this module or under the repo root. */
export function evalSource(evalName: string, file = 'objective.ts'): string {
  const here = fileURLToPath(new URL(`./${evalName}/${file}`, import.meta.url));
  const path = existsSync(here) ? here : join(repoRoot, 'evals', evalName, file);
  return readFileSync(path, 'utf8');
}

/** A tsad compilation, loaded. */
export interface Generated {
  result: CompileResult;
  /** the generated module (primals and derivatives) as functions */
  fns: LoadedModule;
  /** the manifest entry of a generated function */
  entry(name: string): ManifestEntry;
  /**
   * The generated function `name`, after checking that its parameters are exactly `params` (names in
   * order) — the caller passes arguments positionally in that order.
   */
  fn<F extends (...args: never[]) => unknown>(name: string, params: readonly string[]): F;
  /** a primal function emitted alongside the derivatives (the compiled copy of the source function) */
  primal<F extends (...args: never[]) => unknown>(name: string): F;
}

export type DeriveOptions = Omit<CompileOptions, 'js' | 'runtimeImport'>;

const cache = new Map<string, Generated>();
const tsCache = new Map<string, CompileResult>();

function failIfDiagnostics(r: CompileResult, what: string): void {
  const errors = r.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0 || r.code === '') {
    throw new Error(`tsad could not compile ${what}:\n${errors.map(formatDiagnostic).join('\n\n')}`);
  }
}

function describeCompile(files: Record<string, string>, options: DeriveOptions): string {
  return `${Object.keys(files).join('+')} (head ${options.head}, wrt ${options.wrt?.join(',') ?? 'default'}, of ${options.of?.join(',') ?? 'default'}, modes ${options.modes?.join(',') ?? 'all'})`;
}

/**
 * Compiles `files` with tsad to JavaScript and loads the result. Cached under `key`
 * (one compilation per key for the life of the process).
 */
export function derive(key: string, files: () => Record<string, string>, options: DeriveOptions): Generated {
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const src = files();
  const result = compile(src, { ...options, js: true, runtimeImport: null });
  failIfDiagnostics(result, describeCompile(src, options));
  const fns = loadGenerated(result.code);
  const entry = (name: string): ManifestEntry => {
    const e = result.manifest.find((m) => m.name === name);
    if (e === undefined) throw new Error(`tsad output for ${key} has no function ${name} (has: ${result.manifest.map((m) => m.name).join(', ')})`);
    return e;
  };
  // (the adapters look their function up on every call: a checked one is not checked again, which
  // cost det's ℓ = 5 gradient, 8 µs, 2% in string building)
  const checked = new Map<string, { params: readonly string[]; f: unknown }>();
  const g: Generated = {
    result,
    fns,
    entry,
    fn<F extends (...args: never[]) => unknown>(name: string, params: readonly string[]): F {
      const hit = checked.get(name);
      if (hit && hit.params.length === params.length && hit.params.every((p, i) => p === params[i])) return hit.f as F;
      const got = entry(name).params.map((p) => p.name);
      if (got.join(',') !== params.join(',')) {
        throw new Error(`tsad's ${name} has parameters (${got.join(', ')}); the eval plumbing expects (${params.join(', ')})`);
      }
      const f = fns[name];
      if (typeof f !== 'function') throw new Error(`generated module of ${key} does not export ${name}`);
      checked.set(name, { params: [...params], f });
      return f as unknown as F;
    },
    primal<F extends (...args: never[]) => unknown>(name: string): F {
      const f = fns[name];
      if (!result.primals.includes(name) || typeof f !== 'function') throw new Error(`tsad output for ${key} has no primal ${name} (has: ${result.primals.join(', ')})`);
      return f as unknown as F;
    },
  };
  cache.set(key, g);
  return g;
}

/**
 * Compiles `files` with tsad to TypeScript importing its runtime from 'tsad/runtime' (which tsad's
 * front end knows) — the first stage of a nested derivative, whose output is compiled again.
 * Cached under `key`.
 */
export function deriveSource(key: string, files: () => Record<string, string>, options: DeriveOptions): string {
  let r = tsCache.get(key);
  if (r === undefined) {
    const src = files();
    r = compile(src, { ...options, js: false, runtimeImport: 'tsad/runtime' });
    failIfDiagnostics(r, describeCompile(src, options));
    tsCache.set(key, r);
  }
  return r.code;
}

/** Identity seeds for vector mode: an array of n numbers carrying `nb` directions, entry i seeded in direction offset + i. */
export function identitySeed(n: number, nb: number, offset = 0): number[] {
  const s = new Array<number>(n * nb).fill(0);
  for (let i = 0; i < n; i++) s[i * nb + offset + i] = 1;
  return s;
}

/** Zero adjoint buffers shaped like a number[][] */
export function zerosRows(a: readonly (readonly number[])[]): number[][] {
  return a.map((r) => new Array<number>(r.length).fill(0));
}
