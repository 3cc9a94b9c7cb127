// The adjoint of a scratch field's contents, IR → IR on generated code. A scratch field
// (analysis/scratch-fields.ts) is written all over by every call before the call reads it, so the
// adjoint of its contents is zero where a call starts and where it ends, and every backward sweep that
// writes it sets it back to zero. Outside the backward sweeps at work on it, it is all zeros. So, in
// one backward sweep, through its alias (`zb = selfb.whitened`):
//   - an element the sweep reads before it writes it is 0, and its first write, an increment, is an
//     assignment (the first loop over the elements, as for a fresh local array: locarrays.ts);
//   - when the sweep only ever stores zeros there (the resets left once element forwarding moved the
//     values to locals), those stores change nothing: they go, and every read is 0.
// The hand-written gradient of a method keeps such a derivative in a local and never clears it.
import type { Expr, Stmt } from '../ir/types.js';
import { forEachStmt, hasJump, mapBodies, mapStmts, stmtExprs, readsVar } from '../ir/util.js';
import { space } from './fuse.js';
import { foldZeros, onlyIndexedIn, touchesArray, writeFirst } from './locarrays.js';

/** `body` with the zeros of each scratch field adjoint (`isScratchAdjoint`) used */
export function scratchAdjointZeros(body: Stmt[], isScratchAdjoint: (name: string) => boolean): Stmt[] {
  const names = new Set<string>();
  forEachStmt(body, (s) => {
    if (s.k === 'assign' && s.target.k === 'var' && isScratchAdjoint(s.target.name)) names.add(s.target.name);
  });
  let out = body;
  for (const a of names) {
    const at = aliasDefinition(out, a);
    if (at < 0 || !onlyElementAccess(out, a)) continue;
    out = onlyZerosStored(out, a) ? withoutZeroStores(out, a) : (firstLoopAssigns(out, a, at) ?? out);
  }
  return out;
}

/** the index of the one top-level statement setting the alias (`zb = selfb.whitened`), or -1 */
function aliasDefinition(body: Stmt[], a: string): number {
  let sets = 0;
  forEachStmt(body, (s) => {
    if ((s.k === 'assign' && s.target.k === 'var' && s.target.name === a) || (s.k === 'decl' && s.name === a && s.init)) sets++;
  });
  const at = body.findIndex((s) => s.k === 'assign' && s.target.k === 'var' && s.target.name === a && s.value.k === 'field');
  return sets === 1 ? at : -1;
}

/** past its definition, the alias is only indexed or measured */
function onlyElementAccess(body: Stmt[], a: string): boolean {
  let ok = true;
  forEachStmt(body, (s) => {
    const exprs = s.k === 'assign' && s.target.k === 'var' && s.target.name === a ? [s.value] : s.k === 'decl' && s.name === a ? [] : stmtExprs(s);
    if (!exprs.every((e) => onlyIndexedIn(e, a))) ok = false;
  });
  return ok;
}

function storesTo(s: Stmt, a: string): s is Extract<Stmt, { k: 'assign' }> & { target: Extract<Expr, { k: 'idx' }> } {
  return s.k === 'assign' && s.target.k === 'idx' && s.target.obj.k === 'var' && s.target.obj.name === a;
}

function onlyZerosStored(body: Stmt[], a: string): boolean {
  let stores = 0;
  let ok = true;
  forEachStmt(body, (s) => {
    if (!storesTo(s, a)) return;
    stores++;
    if (s.value.k !== 'num' || s.value.v !== 0 || s.op) ok = false;
  });
  return ok && stores > 0;
}

/** the zero stores gone, every element read a 0 */
function withoutZeroStores(body: Stmt[], a: string): Stmt[] {
  const drop = (list: Stmt[]): Stmt[] => list.filter((s) => !storesTo(s, a)).map((s) => mapBodies(s, drop));
  const zero = (e: Expr): Expr => (e.k === 'idx' && e.obj.k === 'var' && e.obj.name === a ? { k: 'num', v: 0 } : e.k === 'bin' || e.k === 'un' ? foldZeros(e) : e);
  const out = mapStmts(drop(body), zero);
  // the alias, read by nothing now, goes with its declaration
  const used = out.some((s) => s.k !== 'decl' && !(s.k === 'assign' && s.target.k === 'var' && s.target.name === a) && touchesArray(s, a));
  return used ? out : out.filter((s) => !((s.k === 'decl' && s.name === a) || (s.k === 'assign' && s.target.k === 'var' && s.target.name === a)));
}

/**
 * The first statement after the definition that touches the alias, when it is a loop whose counter
 * `v` runs over distinct values and which writes the array only as `a[v]` directly in its body: each
 * element's first write in the sweep is there, so reads before it give 0 and it assigns.
 */
function firstLoopAssigns(body: Stmt[], a: string, at: number): Stmt[] | null {
  const i = body.findIndex((s, k) => k > at && touchesArray(s, a));
  const loop = body[i];
  if (!loop || loop.k !== 'for' || hasJump(loop.body)) return null;
  const v = space(loop)?.v;
  if (!v) return null;
  let ok = true;
  forEachStmt(loop.body, (s) => {
    if (storesTo(s, a) && !(loop.body.includes(s) && s.target.index.k === 'var' && s.target.index.name === v)) ok = false;
  });
  if (!ok || [...loop.init, ...loop.update].some((s) => touchesArray(s, a)) || (loop.cond && readsVar(loop.cond, a))) return null;
  const first = writeFirst(loop.body, a, v);
  return first ? body.map((s) => (s === loop ? { ...loop, body: first } : s)) : null;
}

