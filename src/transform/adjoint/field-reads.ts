// Number fields no backward sweep reads. A function writing a field of an object it was given restores
// the old value for its caller's backward sweep (save-on-kill across calls: `a.fx -= f * dx` in a
// method pushes the old `fx`). When no backward sweep of the program reads that field's values at all
// — its values enter only linearly, with passive factors, like a force summed and then added to a
// velocity — the old value is needed by nobody, and the push and the pop go. A number field cannot be
// reached under another name (numbers are copied), so its value reads are exactly the reads `o.fx`
// written out in the backward sweeps; what cannot be seen there (calls of primal code or hand-written
// rules, whole-object intrinsics) counts as reading every field.
//
// The facts come from the backward sweeps as built (compile.ts builds them, then builds again with the
// fields found unread, and checks the result reads none of them).
import type { Expr, Func, Stmt, Ty } from '../../ir/types.js';
import { perFunction } from '../../ir/per-function.js';
import { forEachExpr, forEachStmt, rootVar, stmtExprs } from '../../ir/util.js';
import type { ProgramInfo } from '../context.js';

/** every field, when something in the backward sweep may read any */
export const ALL_FIELDS = 'all';

export type FieldReads = Set<string> | typeof ALL_FIELDS;

/**
 * The number fields whose values the statements read through a variable that is not an adjoint
 * (`adjoints`: the function's adjoint variables), or ALL_FIELDS. `bwdCalls`: the functions a backward
 * sweep may call without reading more than its own backward sweep does (the generated f_bwd).
 */
export function numberFieldReads(stmts: Stmt[], adjoints: ReadonlySet<string>, bwdCalls: (fn: string) => boolean): FieldReads {
  const out = new Set<string>();
  let all = false;
  const visit = (e: Expr) =>
    forEachExpr(e, (x) => {
      if (x.k === 'call' && !bwdCalls(x.fn)) all = true;
      // (tape ops and pushes or pops move references, zerosLike reads only a shape, and an adjoint's
      // fields are no primal values; anything else taking a primal object whole — a copy, a snapshot,
      // restoreInto — may read each of its fields)
      if (x.k === 'intr' && !SHAPE_ONLY.has(x.fn) && !x.fn.startsWith('tape.') && !x.fn.startsWith('Tape.') && x.args.some((a) => holdsObject(a) && !adjointRooted(a, adjoints))) all = true;
      if (x.k === 'field' && x.ty.k === 'num') {
        const r = rootVar(x.obj);
        if (!r || !adjoints.has(r)) out.add(x.name);
      }
    });
  forEachStmt(stmts, (s) => {
    if (s.k === 'assign') {
      // the written field itself is not read (a compound assignment's value reads it)
      const t = s.target;
      if (t.k === 'field') visit(t.obj);
      else if (t.k === 'idx') {
        visit(t.obj);
        visit(t.index);
      }
      visit(s.value);
      return;
    }
    for (const e of stmtExprs(s)) visit(e);
  });
  return all ? ALL_FIELDS : out;
}

/** intrinsics that read no number of the objects they are given */
const SHAPE_ONLY: ReadonlySet<string> = new Set(['push', 'pop', 'zerosLike']);

/** an adjoint variable, or an element or field of one */
function adjointRooted(e: Expr, adjoints: ReadonlySet<string>): boolean {
  if (e.k !== 'var' && e.k !== 'idx' && e.k !== 'field') return false;
  const r = rootVar(e);
  return !!r && adjoints.has(r);
}

function holdsObject(e: Expr): boolean {
  if (e.k === 'num' || e.k === 'bool' || e.k === 'str' || e.k === 'undef' || e.k === 'len' || e.k === 'raw') return false;
  const t = 'ty' in e ? e.ty : null;
  return !t || containsObject(t);
}

function containsObject(t: Ty): boolean {
  switch (t.k) {
    case 'obj':
      return true;
    case 'arr':
      return containsObject(t.elem);
    case 'tuple':
      return t.elems.some(containsObject);
    case 'opt':
      return containsObject(t.base);
    default:
      return false;
  }
}

/** the union of the functions' reads */
export function unionReads(all: Iterable<FieldReads>): FieldReads {
  const out = new Set<string>();
  for (const r of all) {
    if (r === ALL_FIELDS) return ALL_FIELDS;
    for (const n of r) out.add(n);
  }
  return out;
}

/** number fields some statement of `f` assigns (the candidates: only a write pushes), once per function object */
export const writtenNumberFields: (f: Func) => ReadonlySet<string> = perFunction((f) => {
  const out = new Set<string>();
  forEachStmt(f.body, (s) => {
    if (s.k === 'assign' && s.target.k === 'field' && s.target.ty.k === 'num') out.add(s.target.name);
  });
  return out;
});

/**
 * Is `n` the generated backward sweep of a function differentiated through its body? (A hand-written
 * rule's adjoint is not one: what it reads is unknown.) Asked after a function's sweeps are built:
 * every backward sweep it calls has its name by then.
 */
export function isBwdFunction(info: ProgramInfo, n: string): boolean {
  const g = info.generatedFor(n);
  if (!g || g.suffix !== info.naming.backwardFunc) return false;
  const f = info.mod.funcs.get(g.func);
  return !!f && !f.custom && !f.external;
}
