// The input function as written, run beside its compiled copy: `--check` compares the two values.
//
// A compiled module carries a copy of each primal function, normalized for differentiation (calls moved
// before their statement, jumps and callbacks lowered). The derivative checks compare the modes with
// each other and with divided differences of that copy, so a copy that computes another function would
// pass them all. Running the source itself (transpiled only) at the check's point catches it.
import ts from 'typescript';
import { clone } from './values.js';
import { sameResults } from './selfcheck.js';

/**
 * The exports of one self-contained TypeScript or JavaScript file, run as written; null when it imports
 * anything (its imports cannot be resolved here) or throws while loading.
 */
export function loadOriginal(source: string): Record<string, unknown> | null {
  const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } }).outputText;
  if (/\brequire\(/.test(js)) return null;
  const exports: Record<string, unknown> = {};
  try {
    new Function('exports', 'module', `"use strict";\n${js}`)(exports, { exports });
  } catch {
    return null;
  }
  return exports;
}

export interface PrimalComparison {
  /** the result and the arguments after the call (arrays written in place), from the source and from the copy */
  original: { result: unknown; args: unknown[] };
  copy: { result: unknown; args: unknown[] };
  same: boolean;
}

/** Calls the source's function and the compiled copy on copies of `args`; null when the source's throws. */
export function comparePrimal(original: (...a: unknown[]) => unknown, copy: (...a: unknown[]) => unknown, args: unknown[]): PrimalComparison | null {
  const a0 = clone(args);
  let r0: unknown;
  try {
    r0 = original(...a0);
  } catch {
    return null;
  }
  const a1 = clone(args);
  const r1 = copy(...a1);
  return { original: { result: r0, args: a0 }, copy: { result: r1, args: a1 }, same: sameResults(r0, r1) && sameResults(a0, a1) };
}
