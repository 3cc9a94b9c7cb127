// Facts of one function kept by function object. A function is not changed once built (compiles share
// the front end's functions, src/api/compile.ts `sharedModule`), so a fact found from it holds for as
// long as the object lives: the whole-module analyses a compile repeats over unchanged functions (a
// recompile after an edit, the adjoint's program sharing the tangents' functions) find it once.
import type { Func } from './types.js';

/** `fact`, computed once per function object */
export function perFunction<T>(fact: (f: Func) => T): (f: Func) => T {
  const kept = new WeakMap<Func, T>();
  return (f) => {
    if (kept.has(f)) return kept.get(f)!;
    const found = fact(f);
    kept.set(f, found);
    return found;
  };
}
