// Diff-liveness of the head: statements of the forward sweep whose values neither a derivative nor a
// kept result needs are dropped (iterated until the set of dead statements is stable).
import { type Facts, solveBackward } from '../../analysis/dataflow.js';
import type { Expr, LValue, Stmt } from '../../ir/types.js';
import { forEachExpr, forEachStmt, isRef, rootVar, stmtExprs } from '../../ir/util.js';
import { type AdjointContext, aliasRep, EMPTY } from './context.js';

export function deadSignature(cx: AdjointContext, dead: Set<Stmt> = cx.dead): string {
  const order: number[] = [];
  let k = 0;
  forEachStmt(cx.f.body, (st) => {
    if (dead.has(st)) order.push(k);
    k++;
  });
  return order.join(',');
}

/**
 * Diff-liveness (Tapenade §4.9, report §4.7), backward: a variable is live when a later statement
 * that is kept reads it, when a derivative statement reads it (`readsAt`: what the adjoint of each
 * statement reads at its pre-state), when control flow depends on it, or when it is a kept result.
 * An assignment to a variable or into an array that is not live is dead: the forward sweep skips it
 * (and its push), its adjoint stays.
 */
export function diffDead(cx: AdjointContext, readsAt: Map<Stmt, Set<string>>): Set<Stmt> {
  const keep = new Set<string>(); // read by control flow or by loop bounds: always needed
  forEachStmt(cx.f.body, (st) => {
    if (st.k === 'decl' || st.k === 'assign' || st.k === 'expr' || st.k === 'return') return;
    for (const e of stmtExprs(st)) for (const v of readNames(cx, e)) keep.add(v);
    for (const v of readsAt.get(st) ?? []) keep.add(v);
  });
  const exit = new Set<string>();
  if (cx.info.options.primalResults !== false) {
    const w = cx.info.activity.writes.get(cx.name);
    cx.f.params.forEach((p, i) => {
      if (w?.has(i)) exit.add(aliasRep(cx, p.name));
    });
  }
  const needed = (st: Stmt, out: Facts): boolean => {
    if (st.k === 'expr' || st.k === 'return') return true;
    if (st.k !== 'decl' && st.k !== 'assign') return true;
    const value = st.k === 'decl' ? st.init : st.value;
    if (!value) return true;
    let call = false;
    forEachExpr(value, (x) => {
      if (x.k === 'call' || (x.k === 'intr' && (x.fn.startsWith('tape.') || x.fn === 'Tape.acquire'))) call = true;
    });
    if (call) return true;
    const target = st.k === 'decl' ? ({ k: 'var', name: st.name, ty: st.ty } as LValue) : st.target;
    // a reference store (`v = w`, `A[i] = A[j]`, `o.f = row`) decides where adjoints go
    if (isRef(target.ty)) return true;
    const root = rootVar(target);
    if (!root) return true;
    // a write into an object is needed when it is read under any name it has (`st3[0] = …; st2[0]`)
    const rep = aliasRep(cx, root);
    const sameObject = (v: string) => v === root || aliasRep(cx, v) === rep;
    return [...out].some(sameObject) || [...keep].some(sameObject);
  };
  const transfer = (st: Stmt, out: Facts): Facts => {
    const inSet = new Set(out);
    if (st.k === 'return') {
      if (cx.info.options.primalResults !== false && st.e) for (const v of readNames(cx, st.e)) inSet.add(v);
    } else if (needed(st, out)) {
      if (st.k === 'decl' || (st.k === 'assign' && st.target.k === 'var')) inSet.delete(st.k === 'decl' ? st.name : (st.target as { name: string }).name);
      for (const e of stmtExprs(st)) for (const v of readNames(cx, e)) inSet.add(v);
    } else if (st.k === 'decl' || (st.k === 'assign' && st.target.k === 'var')) {
      inSet.delete(st.k === 'decl' ? st.name : (st.target as { name: string }).name);
    }
    for (const v of readsAt.get(st) ?? []) inSet.add(v);
    return inSet;
  };
  const flow = solveBackward(cx.f.body, exit, transfer);
  const dead = new Set<Stmt>();
  forEachStmt(cx.f.body, (st) => {
    if ((st.k === 'decl' || st.k === 'assign') && !needed(st, flow.outOf.get(st) ?? EMPTY)) dead.add(st);
  });
  return dead;
}

/** variables an expression reads, with the alias class of arrays (a write through an alias reaches it) */
export function readNames(cx: AdjointContext, e: Expr): string[] {
  const out: string[] = [];
  forEachExpr(e, (x) => {
    if (x.k === 'var') {
      out.push(x.name);
      if (isRef(x.ty)) out.push(aliasRep(cx, x.name));
    }
  });
  return out;
}
