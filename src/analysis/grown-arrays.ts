// Arrays that may grow by stores past their end: those born of a literal (`const out = []`, `[[], []]`,
// `{ v: [] }`), the parameters a call may pass one (a memo table handed to a recursive helper), and the
// fields some function assigns a literal (`this.buf = []`). A derivative array that shadows one must
// grow with it (adjoint/assign.ts growShadow), and the sparse vector mode, whose direction intervals
// are sized on entry, leaves such an array dense (transform/sparse-vector.ts).
import { callRoots } from './activity.js';
import type { Func, Module } from '../ir/types.js';
import { forEachExpr, forEachStmt } from '../ir/util.js';
import { perFunction } from '../ir/per-function.js';

/** the variables of `f` assigned an array literal, or an object literal holding one (asked of every function per program: kept) */
export const literalVars: (f: Func) => ReadonlySet<string> = perFunction((f) => {
  const out = new Set<string>();
  forEachStmt(f.body, (st) => {
    const name = st.k === 'decl' ? st.name : st.k === 'assign' && st.target.k === 'var' ? st.target.name : null;
    const v = st.k === 'decl' ? st.init : st.k === 'assign' ? st.value : null;
    if (name && v && (v.k === 'arrlit' || (v.k === 'objlit' && v.fields.some((fl) => fl.value.k === 'arrlit')))) out.add(name);
  });
  return out;
});

/**
 * The parameters (`fn\0param`) that some call may pass an array born of a literal, directly or through
 * the caller's own such parameter: a store into them may grow the caller's array.
 */
export function literalParams(mod: Module): Set<string> {
  const marked = new Set<string>();
  const own = new Map([...mod.funcs.values()].map((f) => [f.name, literalVars(f)]));
  for (let changed = true; changed; ) {
    changed = false;
    for (const f of mod.funcs.values()) {
      const grown = (r: string) => own.get(f.name)!.has(r) || marked.has(`${f.name}\0${r}`);
      for (const site of callRoots(f)) {
        const g = mod.funcs.get(site.fn);
        site.roots.forEach((r, k) => {
          const p = g?.params[k];
          if (!r || !p || !grown(r) || p.ty.k !== 'arr' || p.ty.typed) return;
          const key = `${g!.name}\0${p.name}`;
          if (!marked.has(key)) {
            marked.add(key);
            changed = true;
          }
        });
      }
    }
  }
  return marked;
}

/** fields some function of the module assigns an array literal, or an object literal gives one */
export function literalFields(mod: Module): Set<string> {
  const found = new Set<string>();
  for (const f of mod.funcs.values()) for (const name of literalFieldsOf(f)) found.add(name);
  return found;
}

/** the fields `f` assigns an array literal, or gives one in an object literal */
const literalFieldsOf = perFunction((f) => {
  const found = new Set<string>();
  forEachStmt(f.body, (st) => {
    if (st.k === 'assign' && st.target.k === 'field' && st.value.k === 'arrlit') found.add(st.target.name);
    for (const e of st.k === 'decl' ? [st.init] : st.k === 'assign' ? [st.value] : st.k === 'expr' ? [st.e] : st.k === 'return' ? [st.e] : [])
      if (e)
        forEachExpr(e, (x) => {
          if (x.k === 'objlit') for (const fl of x.fields) if (fl.value.k === 'arrlit') found.add(fl.name);
        });
  });
  return found;
});
