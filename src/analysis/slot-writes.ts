// Which arrays and objects a function may change the references of (its "slots"): a reference stored
// into an element or a field (`ps[i] = q`, `o.row = r`), or an intrinsic that adds, removes or
// restores elements (`push`, `pop`, `restoreInto`), directly or through a callee. A function that only
// stores numbers into what it is given (`p.x += h * p.v`) changes numbers, never which object a
// container holds: a reference taken from the container before the call is the same object after it.
import type { Module } from '../ir/types.js';
import { perFunction } from '../ir/per-function.js';
import { forEachStmt, isRef, rootVar } from '../ir/util.js';
import { aliasesOf, callRoots } from './activity.js';

/** intrinsics that may change which elements an array holds (addInto and zeroFill write numbers only) */
const SLOT_INTRINSICS = new Set(['push', 'pop', 'restoreInto', 'tape.pushF', 'tape.pushR', 'tape.pushI']);

const cache = new WeakMap<Module, Map<string, Set<number>>>();

/** the alias classes whose slots a function changes by itself */
const ownSlotWrites = perFunction((f) => {
  const al = aliasesOf(f);
  const direct = new Set<string>();
  const add = (r: string | null) => r && direct.add(al.rep(r));
  forEachStmt(f.body, (s) => {
    if (s.k === 'assign' && s.target.k !== 'var' && isRef(s.target.ty)) add(rootVar(s.target));
    if (s.k === 'expr' && s.e.k === 'intr' && SLOT_INTRINSICS.has(s.e.fn)) add(rootVar(s.e.args[0]));
  });
  return direct;
});

/** For each function of `mod`, the positions of the parameters whose references it may change. */
export function computeSlotWrites(mod: Module): Map<string, Set<number>> {
  const known = cache.get(mod);
  if (known) return known;
  const writes = new Map<string, Set<number>>();
  for (const n of mod.order) writes.set(n, new Set());
  for (let changed = true; changed; ) {
    changed = false;
    for (const n of mod.order) {
      const f = mod.funcs.get(n)!;
      const al = aliasesOf(f);
      const written = new Set(ownSlotWrites(f));
      for (const c of callRoots(f)) {
        const w = writes.get(c.fn);
        c.roots.forEach((r, j) => {
          if (r && w?.has(j)) written.add(al.rep(r));
        });
      }
      const mine = writes.get(n)!;
      f.params.forEach((p, j) => {
        if ((isRef(p.ty) || (p.ty.k === 'opt' && isRef(p.ty.base))) && written.has(al.rep(p.name)) && !mine.has(j)) {
          mine.add(j);
          changed = true;
        }
      });
    }
  }
  cache.set(mod, writes);
  return writes;
}
