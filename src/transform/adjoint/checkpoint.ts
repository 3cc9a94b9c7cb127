// Joint mode and checkpointed regions: a call or region runs plain in the forward sweep; the
// backward sweep restores the state it saved, re-runs it with recording, then runs its adjoint.
import { stmtCalls } from '../../analysis/activity.js';
import { literalVars } from '../../analysis/grown-arrays.js';
import type { Expr, LValue, Stmt, Ty } from '../../ir/types.js';
import { BOOL, forEachExpr, forEachStmt, INT, isRef, NUM, rootVar, stmtExprs, tyOf, VOID, WRITING_INTRINSICS } from '../../ir/util.js';
import type { ProgramInfo } from '../context.js';
import { declAsAssign } from './assign.js';
import { type AdjointContext, aliasRep, primalNames, hasB, hasDirective, type Pair, tapeOp } from './context.js';
import { literalFieldsOf, literalParamsOf, mayGrow } from './grown-lengths.js';
import { primalReads } from './record.js';
import { storesReferences } from './references.js';
import { seq } from './traverse.js';
import { declaredInside, freshLocal, primalCopy } from './util.js';

/**
 * Joint mode for a call (Tapenade §4.10, the default there): `// $ad checkpoint` on the call or on
 * the callee's declaration, or every differentiated call with `adjoint.checkpointCalls`, unless
 * `// $ad nocheckpoint` is on the call or the callee.
 */
export function checkpointedCall(cx: AdjointContext, s: Stmt): boolean {
  const c = s.k === 'expr' ? s.e : s.k === 'decl' ? s.init : s.k === 'assign' ? s.value : null;
  if (!c || c.k !== 'call' || !cx.info.differentiated(c.fn)) return false;
  const callee = cx.info.func(c.fn);
  if (hasDirective(s, 'nocheckpoint') || hasDirective(callee, 'nocheckpoint')) return false;
  if (!(hasDirective(s, 'checkpoint') || hasDirective(callee, 'checkpoint') || cx.info.options.checkpointCalls === true)) return false;
  // calls inside a recursion cycle stay in split mode
  return !reaches(cx.info, c.fn, cx.name);
}

/**
 * A checkpointed region (a call, or statements between checkpoint-start and checkpoint-end): the
 * forward sweep saves what the region overwrites and runs it as plain primal code; the backward
 * sweep puts that back, runs the region's own forward sweep (its tape lives only now) and at once its
 * backward sweep. Trajectories of the region and of the code after it never coexist on the tape.
 */
export function checkpointRegion(cx: AdjointContext, region: Stmt[], at: Stmt, index?: string): Pair {
  const prev = cx.checkpointing;
  cx.checkpointing = at;
  const inner = seq(cx, region);
  cx.checkpointing = prev;
  // adjoints of arrays the region creates are allocated once, by the forward sweep (the backward
  // sweep accumulates into them before the region runs again); anything subtler stays in split mode
  const adjointRefs = new Set<string>();
  for (const n of primalNames(cx)) if (hasB(cx, n)) adjointRefs.add(cx.b.of(n));
  const allocates = (x: Stmt) => x.k === 'assign' && x.target.k === 'var' && adjointRefs.has(x.target.name);
  const hoisted = inner.fwd.filter(allocates);
  const rerun = inner.fwd.filter((x) => !allocates(x));
  let nested = false;
  forEachStmt(rerun, (x) => {
    if (allocates(x) || (x.k === 'expr' && x.e.k === 'intr' && x.e.fn === 'tape.pushR' && x.e.args[1]?.k === 'var' && adjointRefs.has(x.e.args[1].name))) nested = true;
  });
  // a region that stores references would change the primal's rows without their shadows when it
  // runs as plain code: it stays in split mode (references.ts)
  if (nested || storesReferences(cx.info, region)) return inner;
  // a region that may grow an array by a store past its end would grow it without its shadow when it
  // runs as plain code, and the code after it reads that shadow in the backward sweep first: split mode
  if (growsArrays(cx, region)) return inner;
  const state = regionState(cx, region, at, index);
  const fwd: Stmt[] = [];
  const restore: Stmt[] = [];
  for (const lv of state) {
    const ty = lv.ty;
    if (!isRef(ty) && ty.k !== 'num' && ty.k !== 'int' && ty.k !== 'bool') {
      // (a value the float stack cannot hold as it is: a number that may be undefined, a flag string)
      fwd.push({ k: 'expr', e: tapeOp(cx, 'pushR', [lv]) });
      restore.unshift({ k: 'assign', target: lv, value: tapeOp(cx, 'popR', [], ty) });
    } else if (!isRef(ty)) {
      const val: Expr = ty.k === 'bool' ? { k: 'cond', c: lv, a: { k: 'num', v: 1 }, b: { k: 'num', v: 0 }, ty: INT } : lv;
      fwd.push({ k: 'expr', e: tapeOp(cx, 'pushF', [val]) });
      const pop = tapeOp(cx, 'popF', [], NUM);
      restore.unshift({ k: 'assign', target: lv, value: ty.k === 'bool' ? { k: 'bin', op: '!==', a: pop, b: { k: 'num', v: 0 }, ty: BOOL } : pop });
    } else if (lv.k === 'var' && reassignedIn(cx, region, lv.name)) {
      fwd.push({ k: 'expr', e: tapeOp(cx, 'pushR', [lv]) });
      restore.unshift({ k: 'assign', target: lv, value: tapeOp(cx, 'popR', [], ty) });
    } else {
      fwd.push({ k: 'expr', e: tapeOp(cx, 'pushR', [{ k: 'intr', fn: 'snapshot', args: [lv], ty }]) });
      restore.unshift({ k: 'expr', e: { k: 'intr', fn: 'restoreInto', args: [lv, tapeOp(cx, 'popR', [], ty)], ty: VOID } });
    }
  }
  const primal = region.length === 1 && at === region[0] ? [at.k === 'decl' ? declAsAssign(cx, at) : at] : primalCopy(region);
  fwd.push(...primal, ...hoisted);
  if (fwd.length && !fwd[0].comments) fwd[0] = { ...fwd[0], comments: ['// $ad checkpoint: snapshot, then plain primal code'] };
  const bwd: Stmt[] = [...restore, ...rerun, ...inner.bwd];
  // the region runs again in the backward sweep: what it reads at its entry must be there then
  if (region.length && at !== region[0]) {
    const reads = primalReads(cx, bwd);
    for (const r of cx.readsAt.get(region[0]) ?? []) reads.add(r);
    cx.readsAt.set(region[0], reads);
  }
  return { fwd, bwd };
}

function reassignedIn(cx: AdjointContext, region: Stmt[], name: string): boolean {
  let found = false;
  forEachStmt(region, (x) => {
    if ((x.k === 'assign' && x.target.k === 'var' && x.target.name === name) || (x.k === 'decl' && x.name === name)) found = true;
  });
  return found;
}

/**
 * What a checkpointed region overwrites of the state it starts from: variables declared outside it
 * that it assigns, and arrays it writes (directly, through calls, through aliases) — an assigned
 * element alone when the region is that one assignment.
 */
function regionState(cx: AdjointContext, region: Stmt[], at: Stmt, index?: string): LValue[] {
  const inner = declaredInside(region);
  const out = new Map<string, LValue>();
  const tyOfName = new Map<string, Ty>();
  cx.f.params.forEach((p) => tyOfName.set(p.name, p.ty));
  forEachStmt(cx.f.body, (st) => {
    if (st.k === 'decl') tyOfName.set(st.name, st.ty);
  });
  const whole = (r: string | null) => {
    if (!r) return;
    let root = r;
    if (inner.has(root)) {
      if (freshLocal(region, root)) return;
      root = aliasRep(cx, root);
      if (inner.has(root)) root = r;
    }
    out.set(root, { k: 'var', name: root, ty: tyOfName.get(root) ?? NUM });
  };
  // in an iteration of an ii-loop, `a[i]…` with i the loop index is that iteration's own part of a
  const own = (lv: Expr): LValue | null => {
    if (!index) return null;
    let e: Expr = lv;
    while ((e.k === 'idx' || e.k === 'field') && !(e.k === 'idx' && e.obj.k === 'var')) e = e.obj;
    return e.k === 'idx' && e.obj.k === 'var' && e.index.k === 'var' && e.index.name === index && !inner.has(e.obj.name) ? e : null;
  };
  const part = (lv: LValue) => out.set(`${rootVar(lv)}[${index}]`, lv);
  forEachStmt(region, (st) => {
    if (st.k === 'assign' && st.target.k === 'var' && !inner.has(st.target.name)) out.set(st.target.name, st.target);
    // in a loop, a variable the region declares still holds the previous iteration's value before it
    if (st.k === 'decl' && st.init && cx.loopDepth > 0 && region.includes(st)) out.set(st.name, { k: 'var', name: st.name, ty: st.ty });
    if (st.k === 'assign' && st.target.k !== 'var') {
      const single = region.length === 1 && st === at && st.target.k === 'idx' && !isRef(st.target.ty);
      const r = rootVar(st.target);
      const mine = own(st.target);
      if (mine) part(mine);
      else if (single && r && !out.has(r)) out.set(`${r}[]`, st.target);
      else whole(r);
    }
    if (st.k === 'expr' && st.e.k === 'intr' && WRITING_INTRINSICS.has(st.e.fn)) whole(rootVar(st.e.args[0]));
    for (const c of stmtCalls(st)) {
      const w = cx.info.activity.writes.get(c.fn);
      c.args.forEach((a, j) => {
        if (!w?.has(j)) return;
        const mine = own(a);
        if (mine) part(mine);
        else whole(rootVar(a));
      });
    }
  });
  // a whole array saved makes its parts redundant
  for (const key of [...out.keys()]) {
    const b = key.indexOf('[');
    if (b > 0 && out.has(key.slice(0, b))) out.delete(key);
  }
  out.delete(cx.tapeName);
  return [...out.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, lv]) => lv);
}

/** does `from` call `to`, directly or through other functions (itself included)? */
function reaches(info: ProgramInfo, from: string, to: string): boolean {
  const seen = new Set<string>();
  const todo = [from];
  while (todo.length) {
    const n = todo.pop()!;
    if (seen.has(n)) continue;
    seen.add(n);
    const f = info.mod.funcs.get(n);
    if (!f) continue;
    let hit = false;
    forEachStmt(f.body, (st) => {
      for (const c of stmtCalls(st)) {
        if (c.fn === to) hit = true;
        todo.push(c.fn);
      }
    });
    if (hit) return true;
  }
  return false;
}

/** may the statements `region`, or a function they call, store a number past the end of a growable array? */
function growsArrays(cx: AdjointContext, region: Stmt[]): boolean {
  let grows = false;
  forEachStmt(region, (st) => {
    if (st.k === 'assign' && st.target.k === 'idx' && mayGrow(cx, st.target)) grows = true;
    for (const e of stmtExprs(st))
      forEachExpr(e, (x) => {
        if (x.k === 'call' && calleeGrowsArrays(cx.info, x.fn)) grows = true;
      });
  });
  return grows;
}

/**
 * Does `fn`, or a function it calls, store a number into an array that may grow: a field some function
 * assigns `[]`, a variable born of a literal, a parameter some call may pass one (analysis/grown-arrays.ts)?
 */
function calleeGrowsArrays(info: ProgramInfo, fn: string, seen = new Set<string>()): boolean {
  const f = info.mod.funcs.get(fn);
  if (!f || seen.has(fn)) return false;
  seen.add(fn);
  const fields = literalFieldsOf(info);
  const params = literalParamsOf(info);
  const growable = (obj: Expr): boolean => {
    const t = tyOf(obj);
    if (t.k !== 'arr' || t.typed) return false;
    if (obj.k === 'field') return fields.has(obj.name);
    const root = rootVar(obj);
    return !!root && (literalVars(f).has(root) || params.has(`${fn}\0${root}`));
  };
  let grows = false;
  forEachStmt(f.body, (st) => {
    if (grows) return;
    if (st.k === 'assign' && st.target.k === 'idx' && growable(st.target.obj)) grows = true;
    for (const e of stmtExprs(st))
      forEachExpr(e, (x) => {
        if (!grows && x.k === 'call' && calleeGrowsArrays(info, x.fn, seen)) grows = true;
      });
  });
  return grows;
}
