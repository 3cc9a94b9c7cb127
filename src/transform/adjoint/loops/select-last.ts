// Selection loops (the last iteration whose condition holds picks the values, e.g. argmax): the
// backward sweep re-runs only that iteration instead of reversing the whole loop.
import type { Expr, LValue, Stmt } from '../../../ir/types.js';
import { BOOL, forEachExpr, forEachStmt, INT, NUM, stmtExprs, WRITING_INTRINSICS } from '../../../ir/util.js';
import { calleeForwardRecords, primalOfForward } from '../calls.js';
import { type AdjointContext, assignedIn, contains, hasB, isIntVar, type Pair, tapeOp, tyOfLocal } from '../context.js';
import { mustRecord, primalReads } from '../record.js';
import { seq } from '../traverse.js';
import { primalCopy } from '../util.js';
import { countedLoop, forInit } from './counted.js';
import { atFusedTop } from './fused-reduction.js';

/**
 * A selection loop — `for (j = …) { locals…; if (c) { v = e; … } }`, the argmin/argmax scan: each
 * taken branch overwrites the selected values v from this iteration's locals alone, so in reverse
 * the last taken iteration receives all of v's adjoint and every other iteration gets zero. The
 * forward sweep runs the plain primal loop and keeps only that iteration's index (no per-iteration
 * branch record); the backward sweep re-runs that one iteration with the branch taken, taped, and
 * reverses it at once. Nothing else the loop does may outlive an iteration, and the iteration may
 * read only what the loop leaves unchanged, so the re-run sees the values the forward sweep saw.
 */
export function selectLastLoop(cx: AdjointContext, s: Extract<Stmt, { k: 'for' }>): Pair | null {
  const counted = countedLoop(cx, s);
  if (!counted || counted.step <= 0) return null;
  const start = s.init[0].k === 'decl' ? s.init[0].init : s.init[0].k === 'assign' ? s.init[0].value : null;
  if (!start || start.k !== 'num' || start.v < 0) return null; // -1 then means "never taken"
  const ifs = s.body.filter((x): x is Extract<Stmt, { k: 'if' }> => x.k === 'if');
  if (ifs.length !== 1 || ifs[0].else.length || !ifs[0].then.length) return null;
  const sel = ifs[0];
  const index = counted.index.name;
  const selected = new Set<string>();
  for (const t of sel.then) {
    if (t.k !== 'assign' || t.target.k !== 'var' || (t.target.ty.k !== 'num' && t.target.ty.k !== 'int') || t.target.name === index) return null;
    selected.add(t.target.name);
  }
  if (![...selected].some((v) => hasB(cx, v))) return null;
  // the iteration's own values: defined in it before any read, never read outside the loop
  const locals = new Set<string>();
  const readsOf = (e: Expr): string[] => {
    const out: string[] = [];
    forEachExpr(e, (x) => {
      if (x.k === 'var') out.push(x.name);
    });
    return out;
  };
  const sideEffectFree = (e: Expr): boolean => {
    let ok = true;
    forEachExpr(e, (x) => {
      if (x.k === 'call' && (cx.info.activity.writes.get(x.fn)?.size ?? 1) > 0) ok = false;
      if (x.k === 'intr' && (x.fn.startsWith('tape.') || WRITING_INTRINSICS.has(x.fn))) ok = false;
    });
    return ok;
  };
  for (const x of s.body) {
    if (x === sel) {
      for (const r of readsOf(sel.c)) if (!locals.has(r) && assignedIn(cx, s.body, r) && !selected.has(r)) return null;
      for (const t of sel.then) {
        const value = (t as Extract<Stmt, { k: 'assign' }>).value;
        if (!sideEffectFree(value)) return null;
        for (const r of readsOf(value)) if (selected.has(r) || (!locals.has(r) && assignedIn(cx, s.body, r))) return null;
      }
      continue;
    }
    const target = x.k === 'decl' && x.init ? x.name : x.k === 'assign' && x.target.k === 'var' ? x.target.name : null;
    const value = x.k === 'decl' ? x.init : x.k === 'assign' ? x.value : null;
    if (!target || !value || selected.has(target) || target === index || locals.has(target) || !sideEffectFree(value)) return null;
    for (const r of readsOf(value)) if (selected.has(r) || (!locals.has(r) && assignedIn(cx, s.body, r))) return null;
    locals.add(target);
  }
  let readOutside = false;
  forEachStmt(cx.f.body, (x) => {
    if (x === s) return;
    for (const e of stmtExprs(x)) for (const r of readsOf(e)) if (locals.has(r) && !contains(cx, s.body, x)) readOutside = true;
  });
  if (readOutside) return null;

  const init = seq(cx, s.init);
  cx.loopDepth++;
  cx.loops.push(s);
  const iteration = seq(cx, s.body.flatMap((x) => (x === sel ? sel.then : [x])));
  cx.loopDepth--;
  cx.loops.pop();
  const last = cx.names.fresh(`${index}Taken`);
  const lv: LValue = { k: 'var', name: last, ty: INT };
  const fwdBody = primalCopy(s.body.map((x) => (x === sel ? { ...sel, then: [...sel.then, { k: 'assign', target: lv, value: counted.index }] } : x)));
  // the plain loop records nothing: selected values the backward sweep needs from before the loop
  // are saved around it
  const saved = [...selected].filter((v) => mustRecord(cx, s, v)).sort();
  // directly in a fused iteration the backward half runs in the same scope, right after: the taken
  // index is still in its variable
  const kept = atFusedTop(cx, s);
  const fwd: Stmt[] = [
    ...saved.map((v): Stmt => ({ k: 'expr', e: tapeOp(cx, isIntVar(cx, v) ? 'pushI' : 'pushF', [{ k: 'var', name: v, ty: tyOfLocal(cx, v) ?? NUM }]) })),
    { k: 'decl', name: last, ty: INT, init: { k: 'num', v: -1 }, konst: false, comments: ['// $ad selection loop: only the last taken iteration is reversed'] },
    ...forInit(cx, { ...s, init: init.fwd, body: fwdBody }, init),
    ...(kept ? [] : [{ k: 'expr', e: tapeOp(cx, 'pushI', [lv]) } as Stmt]),
  ];
  const rerun: Stmt = {
    k: 'if',
    c: { k: 'bin', op: '!==', a: lv, b: { k: 'num', v: -1 }, ty: BOOL },
    // the selected values already hold what the taken branch assigns: it is not run again
    then: [{ k: 'assign', target: counted.index, value: lv }, ...rerunForward(cx, iteration, sel.then), ...iteration.bwd],
    else: [],
    loc: s.loc,
  };
  const restore = saved
    .reverse()
    .map((v): Stmt => ({ k: 'assign', target: { k: 'var', name: v, ty: tyOfLocal(cx, v) ?? NUM }, value: tapeOp(cx, isIntVar(cx, v) ? 'popI' : 'popF', [], isIntVar(cx, v) ? INT : NUM) }));
  const bwd: Stmt[] = [...(kept ? [] : [{ k: 'decl', name: last, ty: INT, init: tapeOp(cx, 'popI', [], INT), konst: true } as Stmt]), rerun, ...restore, ...init.bwd];
  // the re-run iteration sets its own index and locals; what it reads at the loop must be there
  cx.loopScoped.add(index);
  for (const n of locals) {
    cx.loopScoped.add(n);
    cx.rerunLocals.add(n);
  }
  const reads = primalReads(cx, [rerun]);
  reads.delete(index);
  for (const n of locals) reads.delete(n);
  cx.readsAt.set(s, reads);
  return { fwd, bwd, selection: { rerun: rerun as Extract<Stmt, { k: 'if' }>, selected, saved: saved.length > 0 } };
}

/**
 * The forward part of a re-run iteration, without what its backward part does not need: the taken
 * branch's assignments (the selected values already hold them) and calls whose results nobody reads
 * there, when the callee's forward sweep records nothing and writes no array.
 */
function rerunForward(cx: AdjointContext, iteration: Pair, taken: Stmt[]): Stmt[] {
  // (shadows too: `cb = csb[k]`, bound with `c = cs[k]` for a row, is what the backward part writes into)
  const live = readsIn(iteration.bwd);
  const kept: Stmt[] = [];
  for (let k = iteration.fwd.length - 1; k >= 0; k--) {
    const x = iteration.fwd[k];
    if (taken.includes(x)) continue;
    if (x.k === 'assign' && x.target.k === 'var' && !live.has(x.target.name) && removable(cx, x.value)) continue;
    kept.unshift(x);
    for (const v of readsIn([x])) live.add(v);
  }
  return kept;
}

/** every variable statements read, primal or adjoint (a variable assigned whole is not read by that) */
function readsIn(list: Stmt[]): Set<string> {
  const out = new Set<string>();
  const visit = (e: Expr) =>
    forEachExpr(e, (x) => {
      if (x.k === 'var') out.add(x.name);
    });
  forEachStmt(list, (s) => {
    for (const e of stmtExprs(s)) {
      if (s.k === 'assign' && e === s.target && s.target.k === 'var' && !s.op) continue;
      visit(e);
    }
  });
  return out;
}

/** an expression whose evaluation leaves nothing behind: no tape, no array write */
function removable(cx: AdjointContext, e: Expr): boolean {
  let ok = true;
  forEachExpr(e, (y) => {
    if (y.k === 'intr' && !y.fn.startsWith('Math.')) ok = false;
    if (y.k === 'call') {
      const fn = primalOfForward(cx, y.fn) ?? (cx.info.differentiated(y.fn) ? null : y.fn);
      if (!fn || (cx.info.activity.writes.get(fn)?.size ?? 1) !== 0 || (primalOfForward(cx, y.fn) !== null && calleeForwardRecords(cx.info, fn))) ok = false;
    }
  });
  return ok;
}
