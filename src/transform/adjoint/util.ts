// Small helpers over IR shared by several adjoint concerns.
import type { Expr, Stmt, Ty } from '../../ir/types.js';
import { forEachExpr, forEachStmt } from '../../ir/util.js';

export function declaredInside(body: Stmt[]): Set<string> {
  const out = new Set<string>();
  forEachStmt(body, (st) => {
    if (st.k === 'decl') out.add(st.name);
  });
  return out;
}

/** is `name` declared in `body` as a new array or object (not an alias of one from outside)? */
export function freshLocal(body: Stmt[], name: string): boolean {
  let fresh = false;
  forEachStmt(body, (st) => {
    if (st.k === 'decl' && st.name === name && st.init) fresh = st.init.k === 'arrlit' || st.init.k === 'objlit' || st.init.k === 'alloc' || st.init.k === 'call' || (st.init.k === 'intr' && ['copy', 'snapshot', 'zerosLike'].includes(st.init.fn));
  });
  return fresh;
}

export function isFlatArray(t: Ty): boolean {
  return t.k === 'arr' && (t.elem.k === 'num' || t.elem.k === 'int');
}

/** The loop body as plain primal code for a sweep whose locals are declared at function scope. */
export function primalCopy(body: Stmt[]): Stmt[] {
  const out: Stmt[] = [];
  for (const st of body) {
    if (st.k === 'decl') {
      if (st.init) out.push({ k: 'assign', target: { k: 'var', name: st.name, ty: st.ty }, value: st.init, loc: st.loc });
      continue;
    }
    if (st.k === 'if') out.push({ ...st, then: primalCopy(st.then), else: primalCopy(st.else) });
    else if (st.k === 'for') out.push({ ...st, init: primalCopy(st.init), update: primalCopy(st.update), body: primalCopy(st.body) });
    else if (st.k === 'while' || st.k === 'do') out.push({ ...st, body: primalCopy(st.body) });
    else if (st.k === 'block') out.push({ ...st, body: primalCopy(st.body) });
    else out.push(st);
  }
  return out;
}

export function exprReads(e: Expr, name: string): boolean {
  let found = false;
  forEachExpr(e, (x) => {
    if (x.k === 'var' && x.name === name) found = true;
  });
  return found;
}

/** does `s` (or a statement inside it) assign the variable `name`? */
export function assignsVar(s: Stmt, name: string): boolean {
  let found = false;
  forEachStmt([s], (st) => {
    if ((st.k === 'decl' && st.name === name) || (st.k === 'assign' && st.target.k === 'var' && st.target.name === name)) found = true;
  });
  return found;
}
