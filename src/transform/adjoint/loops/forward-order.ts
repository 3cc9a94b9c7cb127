// Forward-order loops: a counted loop whose iterations' adjoints do not depend on each other's order
// runs its backward sweep forwards (no reversed index, no recorded control).
import type { Expr, Stmt, Ty } from '../../../ir/types.js';
import { containsCall, forEachExpr, forEachStmt, INT, NUM, rootVar } from '../../../ir/util.js';
import { type AdjointContext, type Pair, tapeOp, tyOfLocal } from '../context.js';
import { cheapReachingDef, primalReads } from '../record.js';
import { exprReads, primalCopy } from '../util.js';
import { forInit } from './counted.js';

/**
 * A loop whose reversed iterations are independent — each writes only adjoint elements indexed by
 * the loop index, and reads adjoint values the loop does not write — may run its backward sweep in
 * forward order. Then the values it needs that the forward sweep recorded per iteration (a running
 * power, a passive recurrence) are computed again alongside, from their values at the loop's entry:
 * one push per loop instead of one per iteration (`power *= t` in a polynomial: no tape at all
 * inside the loop). Each element still receives its increments in the same order, so the gradient
 * keeps its bits.
 */
export function forwardOrderLoop(cx: AdjointContext, s: Extract<Stmt, { k: 'for' }>, index: string, pairs: Pair[], init: Pair): Pair | null {
  const isPop = (x: Stmt): x is Extract<Stmt, { k: 'assign' }> =>
    x.k === 'assign' && x.target.k === 'var' && x.value.k === 'intr' && (x.value.fn === 'tape.popF' || x.value.fn === 'tape.popI');
  const isPush = (x: Stmt) => x.k === 'expr' && x.e.k === 'intr' && (x.e.fn === 'tape.pushF' || x.e.fn === 'tape.pushI') && x.e.args[1]?.k === 'var';
  const recorded = new Set<string>();
  const adjoints: Stmt[][] = [];
  for (let k = 0; k < pairs.length; k++) {
    const st = s.body[k];
    if (st.k !== 'assign' && st.k !== 'decl') return null;
    const adj: Stmt[] = [];
    for (const x of pairs[k].bwd) {
      if (isPop(x)) recorded.add((x.target as Extract<Expr, { k: 'var' }>).name);
      else adj.push(x);
    }
    for (const x of pairs[k].fwd) if (x !== st && !isPush(x) && !(st.k === 'decl' && x.k === 'assign' && x.target.k === 'var' && x.target.name === st.name && x.value === st.init)) return null;
    adjoints.push(adj);
  }
  if (!recorded.size) return null;
  // the recorded values: scalars the body updates from themselves, the index and loop-invariant values
  const written = new Set<string>();
  forEachStmt(s.body, (x) => {
    if (x.k === 'decl') written.add(x.name);
    if (x.k === 'assign') written.add(rootVar(x.target) ?? '');
  });
  const slice = new Set<Stmt>();
  for (const st of s.body) {
    const target = st.k === 'decl' ? st.name : st.k === 'assign' && st.target.k === 'var' ? st.target.name : null;
    if (!target || !recorded.has(target)) continue;
    const value = st.k === 'decl' ? st.init : (st as Extract<Stmt, { k: 'assign' }>).value;
    if (!value || containsCall(value) || tyOfLocal(cx, target)?.k !== 'num' && tyOfLocal(cx, target)?.k !== 'int') return null;
    let ok = true;
    forEachExpr(value, (x) => {
      if (x.k === 'var' && x.name !== index && written.has(x.name) && !recorded.has(x.name)) ok = false;
      if (x.k === 'intr' && !x.fn.startsWith('Math.')) ok = false;
    });
    if (!ok) return null;
    slice.add(st);
  }
  // independent reversed iterations: adjoint writes go to elements at the loop index only, and no
  // adjoint the loop writes is read at another place
  const bnames = new Set<string>();
  const adjWritten = new Set<string>();
  for (const adj of adjoints)
    for (const x of adj) {
      if (x.k === 'decl') {
        bnames.add(x.name);
        continue;
      }
      if (x.k !== 'assign' || x.target.k !== 'idx' || x.target.obj.k !== 'var' || x.target.index.k !== 'var' || x.target.index.name !== index) return null;
      adjWritten.add(x.target.obj.name);
    }
  for (const adj of adjoints)
    for (const x of adj) {
      const value = x.k === 'decl' ? x.init : x.k === 'assign' ? x.value : null;
      if (!value) return null;
      let ok = true;
      forEachExpr(value, (y) => {
        if (y.k === 'idx' && y.obj.k === 'var' && adjWritten.has(y.obj.name) && !(y.index.k === 'var' && y.index.name === index)) ok = false;
        if (y.k === 'call' || (y.k === 'intr' && y.fn.startsWith('tape.'))) ok = false;
      });
      if (!ok) return null;
    }
  // two statements adding into one element would swap the order of their increments
  const incremented = adjoints.filter((a) => a.some((x) => x.k === 'assign')).length;
  if (incremented > 1) return null;
  const order = [...recorded].sort();
  const tyOf = (v: string): Ty => tyOfLocal(cx, v) ?? NUM;
  const isInt = (v: string) => tyOf(v).k === 'int';
  const entry = new Map(order.map((v) => [v, cx.names.fresh(`${v}Entry`)]));
  // an entry value from a cheap assignment of unchanging inputs (`power = 1`) is assigned again
  const again = new Map<string, Expr>();
  for (const v of order) {
    const def = cheapReachingDef(cx, s, v);
    if (def) again.set(v, def);
  }
  const pushed = order.filter((v) => !again.has(v));
  const fwd: Stmt[] = [
    ...pushed.map((v): Stmt => ({ k: 'expr', e: tapeOp(cx, isInt(v) ? 'pushI' : 'pushF', [{ k: 'var', name: v, ty: tyOf(v) }]) })),
    ...forInit(cx, { ...s, init: init.fwd, body: primalCopy(s.body) }, init),
  ];
  if (fwd[0]) fwd[0] = { ...fwd[0], comments: ['// $ad forward-order adjoint loop: its backward sweep runs forwards from the entry values'] };
  const body: Stmt[] = [];
  s.body.forEach((st, k) => {
    body.push(...adjoints[k]);
    if (slice.has(st)) body.push(...primalCopy([st]));
  });
  const bwd: Stmt[] = [
    ...[...pushed].reverse().map((v): Stmt => ({ k: 'decl', name: entry.get(v)!, ty: tyOf(v), init: tapeOp(cx, isInt(v) ? 'popI' : 'popF', [], isInt(v) ? INT : NUM), konst: true })),
    ...order.filter((v) => again.has(v)).map((v): Stmt => ({ k: 'decl', name: entry.get(v)!, ty: tyOf(v), init: again.get(v)!, konst: true })),
    ...order.map((v): Stmt => ({ k: 'assign', target: { k: 'var', name: v, ty: tyOf(v) }, value: { k: 'var', name: entry.get(v)!, ty: tyOf(v) } })),
    { k: 'for', init: primalCopy(s.init), cond: s.cond, update: s.update, body, loc: s.loc },
    ...order.map((v): Stmt => ({ k: 'assign', target: { k: 'var', name: v, ty: tyOf(v) }, value: { k: 'var', name: entry.get(v)!, ty: tyOf(v) } })),
    ...init.bwd,
  ];
  if (s.init[0]?.k === 'decl') cx.loopScoped.add(index);
  const reads = primalReads(cx, bwd);
  reads.delete(index);
  for (const v of order) if (!again.get(v) || !exprReads(again.get(v)!, v)) reads.delete(v);
  cx.readsAt.set(s, reads);
  return { fwd, bwd };
}
