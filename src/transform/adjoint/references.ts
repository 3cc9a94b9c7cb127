// The reference model for arrays and objects, as the adjoint follows it.
//
// Shadows belong to objects, not to variables: wherever the primal holds an array or object `x`, the
// generated code holds its adjoint `x̄` in the matching place. A reference store — `v = w`, `A[i] = row`,
// `o.f = arr`, a swap — is mirrored onto the shadow in the forward sweep (never differentiated); the
// backward sweep undoes it, putting back both the primal and the shadow reference it overwrote
// (recorded on the tape) before it reverses earlier statements. A fresh value (literal, copy, helper
// result) gets a fresh zero shadow, and what reaches that shadow flows back into what it was built from.
// Regions that run as plain primal code in the forward sweep (joint-mode calls, checkpointed regions,
// binomial loops) would change the primal's structure without its shadow's: where they store
// references, they are reversed with an ordinary tape instead.
import { callSites, stmtCalls } from '../../analysis/activity.js';
import { perFunction } from '../../ir/per-function.js';
import { isFreshValue } from '../../analysis/scratch-fields.js';
import type { Expr, LValue, Stmt } from '../../ir/types.js';
import { forEachStmt, isRef, rootVar, tyOf, VOID, readsVar } from '../../ir/util.js';
import type { ProgramInfo } from '../context.js';
import { literalAdjoint } from './assign.js';
import { type AdjointContext, bwhole, hasB } from './context.js';

/** Does overwriting `target` overwrite a reference whose shadow the backward sweep must put back? */
export function shadowIsRestored(cx: AdjointContext, target: LValue): boolean {
  const root = rootVar(target);
  return !!root && isRef(target.ty) && hasB(cx, root) && bwhole(cx, target) !== null;
}

/**
 * A row or field store of an array or object (`A[i] = A[j]`, `o.f = v`): always recorded, since undoing
 * it on the shadow alone would leave the primal's rows out of step with their adjoints.
 */
export function isRowStore(target: LValue): boolean {
  return isRef(target.ty) && target.k !== 'var';
}

/** `s = [s[1], s[0] * 2]`, `v = g(v)`: the new value of `root` is built from its old value. */
export function rebuildsFromOld(root: string, parts: Expr[]): boolean {
  return parts.some((e) => readsVar(e, root));
}

/**
 * The new value's shadow held in a local (`sbNew`) while the backward sweep puts the old references
 * back: its adjoint then flows into the old value's parts, read at the old value.
 */
export function holdShadow(cx: AdjointContext, bt: Expr): { decl: Stmt; held: Extract<Expr, { k: 'var' }> } {
  const held: Extract<Expr, { k: 'var' }> = { k: 'var', name: cx.names.fresh(`${rootVar(bt) ?? 'value'}New`), ty: tyOf(bt) };
  return { decl: { k: 'decl', name: held.name, ty: held.ty, init: bt, konst: true }, held };
}

/**
 * A fresh array or object (a literal, a copy) stored where `bt` is its adjoint: what reaches `bt` flows
 * back into what the value was built from. Aliases need nothing: they share their shadow.
 */
export function freshValueAdjoint(cx: AdjointContext, s: Stmt, value: Expr, bt: LValue): Stmt[] {
  if (value.k === 'arrlit' || value.k === 'objlit') return literalAdjoint(cx, s, value, bt);
  // `c ? [v, v] : [-v]`: the branch the forward sweep took builds the value, and takes its adjoint
  if (value.k === 'cond') {
    const a = freshValueAdjoint(cx, s, value.a, bt);
    const b = freshValueAdjoint(cx, s, value.b, bt);
    return a.length || b.length ? [{ k: 'if', c: value.c, then: a, else: b }] : [];
  }
  const src = value.k === 'intr' && (value.fn === 'copy' || value.fn === 'snapshot') ? bwhole(cx, value.args[0]) : null;
  return src ? [{ k: 'expr', e: { k: 'intr', fn: 'addInto', args: [src, bt], ty: VOID } }] : [];
}

/** intrinsics that change an array's length, and with it where later elements sit */
const RESHAPING = new Set(['push', 'pop']);

/**
 * Does running `body` (and what it calls) change the structure of arrays or objects that live outside
 * it — a row or field store of a reference, or a push or pop on an array it did not create? Such a
 * region cannot run as plain primal code in the forward sweep: its shadows would not follow.
 */
export function storesReferences(info: ProgramInfo, body: Stmt[]): boolean {
  if (storesReferencesItself(body)) return true;
  // what it calls, transitively (each function's own answer is kept: every adjoint of a caller asks)
  const seen = new Set<string>();
  const todo: string[] = [];
  forEachStmt(body, (st) => {
    for (const c of stmtCalls(st)) todo.push(c.fn);
  });
  while (todo.length) {
    const fn = todo.pop()!;
    if (seen.has(fn) || !info.mod.funcs.has(fn)) continue;
    seen.add(fn);
    const g = info.func(fn);
    if (functionStoresReferences(g)) return true;
    for (const site of callSites(g)) for (const c of site.calls) todo.push(c.fn);
  }
  return false;
}

/** storesReferences of `body`'s own statements, not counting what it calls */
function storesReferencesItself(body: Stmt[]): boolean {
  // arrays it created: names only ever given fresh arrays (`const ls = this.layers` names another's)
  const local = new Set<string>();
  const aliases = new Set<string>();
  forEachStmt(body, (st) => {
    if (st.k === 'decl') (st.init === null || isFreshValue(st.init) ? local : aliases).add(st.name);
    if (st.k === 'assign' && st.target.k === 'var' && !isFreshValue(st.value)) aliases.add(st.target.name);
  });
  for (const n of aliases) local.delete(n);
  let found = false;
  forEachStmt(body, (st) => {
    if (found) return;
    if (st.k === 'assign' && isRowStore(st.target)) found = true;
    if (st.k === 'expr' && st.e.k === 'intr' && RESHAPING.has(st.e.fn)) {
      const r = rootVar(st.e.args[0]);
      if (!r || !local.has(r)) found = true;
    }
  });
  return found;
}

const functionStoresReferences = perFunction((f) => storesReferencesItself(f.body));
