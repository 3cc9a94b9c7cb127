// Module-level data (`const W = [1, 2]` outside every function) is passive: tsad gives it no derivative
// and no shadow. A function that writes into it (`W[0] = x`, `BUF.fill(x)`, `W.push(x)`, a helper
// writing an array it is given `W`) would store values whose derivatives then go nowhere, so such a
// write is refused where it is written.
import { computeWrites, stmtCalls } from '../analysis/activity.js';
import type { Expr, Module, Stmt } from '../ir/types.js';
import { perFunction } from '../ir/per-function.js';
import { forEachExpr, forEachStmt, isRef, stmtExprs, WRITING_INTRINSICS } from '../ir/util.js';
import { TransformError } from './tangent.js';

/** the module constant an element, field or whole reference is read from, directly or through a local alias */
function dataOf(e: Expr, aliases: Map<string, string>): string | null {
  switch (e.k) {
    case 'global':
      return e.name;
    case 'var':
      return aliases.get(e.name) ?? null;
    case 'idx':
    case 'field':
    case 'sub':
      return dataOf(e.obj, aliases);
    default:
      return null;
  }
}

/** does a function name any module constant? (one that does not cannot write into one) */
const namesModuleData = perFunction((f) => {
  let named = false;
  forEachStmt(f.body, (s) => {
    for (const e of stmtExprs(s))
      forEachExpr(e, (x) => {
        if (x.k === 'global') named = true;
      });
  });
  return named;
});

export function refuseWritesToModuleData(mod: Module): void {
  // (differentiated code restores references from its tape: a write through one of them still counts as
  // a write into every parameter, but a shadow's write is not taken for one into the data beside it)
  const writes = computeWrites(mod, true);
  for (const n of mod.order) {
    const f = mod.funcs.get(n)!;
    if (!namesModuleData(f)) continue;
    // locals that name module data (`const buf = BUF`, `let row = W[0]`), in program order
    const aliases = new Map<string, string>();
    const refuse = (name: string, at: Stmt | Expr): never => {
      throw new TransformError(`'${f.name}' writes into the module constant '${name}': tsad treats module-level data as constant (it has no derivative), so the values stored there would lose theirs`, at);
    };
    forEachStmt(f.body, (s) => {
      if (s.k === 'decl' && s.init && isRef(s.ty)) {
        const d = dataOf(s.init, aliases);
        if (d) aliases.set(s.name, d);
      }
      if (s.k === 'assign' && s.target.k === 'var' && isRef(s.target.ty)) {
        const d = dataOf(s.value, aliases);
        if (d) aliases.set(s.target.name, d);
      }
      if (s.k === 'assign' && s.target.k !== 'var') {
        const d = dataOf(s.target, aliases);
        if (d) refuse(d, s);
      }
      if (s.k === 'expr' && s.e.k === 'intr' && WRITING_INTRINSICS.has(s.e.fn)) {
        const d = dataOf(s.e.args[0], aliases);
        if (d) refuse(d, s);
      }
      for (const c of stmtCalls(s)) {
        const written = writes.get(c.fn);
        c.args.forEach((a, j) => {
          const d = written?.has(j) ? dataOf(a, aliases) : null;
          if (d) refuse(d, c.loc ? c : s);
        });
      }
    });
  }
}
