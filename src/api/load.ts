// Loading generated JavaScript in-process with `new Function` (no file system, works in a browser).
// A Content-Security-Policy without 'unsafe-eval' forbids this: use the ahead-of-time CLI there.
import * as runtime from '../runtime/index.js';

// the runtime exports generated code refers to (the rest of the runtime is for hand-written drivers)
const RUNTIME_NAMES = ['Tape', 'addInto', 'restoreInto', 'snapshot', 'zeroFill', 'zeros', 'zerosLike', 'zerosAgain', 'float64Again', 'zeroedFor'];

export type LoadedModule = Record<string, (...args: unknown[]) => unknown>;

/** Evaluates a module compiled with `{ js: true, runtimeImport: null }` and returns its functions. */
export function loadGenerated(jsCode: string, runtimeNames: Record<string, string> = {}): LoadedModule {
  const names: string[] = [];
  const body = jsCode.replace(/^export function (\w+)/gm, (_m, n: string) => {
    names.push(n);
    return `function ${n}`;
  }).replace(/^export type .*$/gm, '');
  // the runtime enters under the names the code gives it (they differ where the input uses the originals)
  const factory = new Function(...RUNTIME_NAMES.map((n) => runtimeNames[n] ?? n), `"use strict";\n${body}\nreturn { ${names.join(', ')} };`);
  return factory(...RUNTIME_NAMES.map((n) => (runtime as Record<string, unknown>)[n])) as LoadedModule;
}
