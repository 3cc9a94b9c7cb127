// Reversing a loop: picks the strategy (binomial checkpointing, selection, fused reduction, forward
// order, scratch prefix, static tape) and otherwise reverses it itself: a counted loop backwards over its
// index, any other loop replayed by an iteration count kept on the tape.
import type { Expr, Stmt } from '../../../ir/types.js';
import { BOOL, INT } from '../../../ir/util.js';
import { checkpointRegion } from '../checkpoint.js';
import { type AdjointContext, hasDirective, joinPairs, type Pair, tapeOp } from '../context.js';
import { primalReads, recomputableDecls, recomputation } from '../record.js';
import { seq, stmtPairs } from '../traverse.js';
import { primalCopy } from '../util.js';
import { binomialDirective, binomialLoop } from './binomial.js';
import { countedLoop, forInit } from './counted.js';
import { forwardOrderLoop } from './forward-order.js';
import { fusedReduction } from './fused-reduction.js';
import { scratchBuffer, scratchPrefix, scratchSnapshot } from './scratch.js';
import { storesReferences } from '../references.js';
import { perPassLoop } from '../reused-shadows.js';
import { selectLastLoop } from './select-last.js';
import { staticTape } from './static-tape.js';

export function loop(cx: AdjointContext, s: Extract<Stmt, { k: 'for' | 'while' | 'do' }>): Pair {
  const slots = cx.info.options.binomial === false ? null : binomialDirective(s);
  // (a loop storing references runs with a tape instead: its shadows must follow, see references.ts)
  if (slots !== null && !storesReferences(cx.info, s.body)) return binomialLoop(cx, s, slots);
  if (s.k === 'for' && cx.info.options.recompute !== false && !hasDirective(s, 'ii-loop')) {
    const sel = selectLastLoop(cx, s);
    if (sel) return sel;
    const fused = fusedReduction(cx, s);
    if (fused) return fused;
  }
  const init = s.k === 'for' ? seq(cx, s.init) : { fwd: [], bwd: [] };
  cx.loopDepth++;
  cx.loops.push(s);
  const counted = s.k === 'for' ? countedLoop(cx, s) : null;
  let upd: Pair = { fwd: [], bwd: [] };
  if (s.k === 'for' && !counted) upd = seq(cx, s.update);
  const recompute = counted && cx.info.options.recompute !== false ? recomputableDecls(cx, s.body, counted.index.name) : [];
  for (const d of recompute) cx.recomputed.add(d);
  const scratch = counted && cx.info.options.recompute !== false ? scratchPrefix(cx, s as Extract<Stmt, { k: 'for' }>, recompute) : null;
  if (scratch) for (const k of scratch.kills) cx.recomputed.add(k);
  // `$ad ii-loop`: independent iterations, each checkpointed (its tape lives only in the backward sweep)
  const outerPerPass = cx.perPass;
  cx.perPass = perPassLoop(cx, s);
  const pairs = hasDirective(s, 'ii-loop') ? null : stmtPairs(cx, s.body);
  cx.perPass = outerPerPass;
  const body = pairs ? joinPairs(pairs) : checkpointRegion(cx, s.body, { k: 'block', body: s.body, comments: ['// $ad ii-loop'] }, counted?.index.name);
  cx.loopDepth--;
  cx.loops.pop();
  if (counted && pairs && !recompute.length && !scratch && cx.info.options.recompute !== false) {
    const fo = forwardOrderLoop(cx, s as Extract<Stmt, { k: 'for' }>, counted.index.name, pairs, init);
    if (fo) return fo;
  }
  if (body.bwd.length === 0 && upd.bwd.length === 0) {
    if (s.k !== 'for') return { fwd: [{ ...s, body: body.fwd }], bwd: [] };
    return { fwd: forInit(cx, { ...s, init: init.fwd, update: counted ? s.update : upd.fwd, body: body.fwd }, init), bwd: init.bwd };
  }
  if (counted) {
    const i = counted.index;
    const rev: Stmt = {
      k: 'for',
      init: [{ k: 'assign', target: i, value: counted.last }],
      cond: counted.revCond,
      update: [{ k: 'assign', target: i, value: { k: 'bin', op: counted.step > 0 ? '-' : '+', a: i, b: { k: 'num', v: Math.abs(counted.step) }, ty: INT }, op: counted.step > 0 ? '-' : '+', inc: Math.abs(counted.step) === 1 }],
      body: [...recompute.flatMap((d) => recomputation(cx, d)), ...(scratch ? primalCopy(scratch.prefix) : []), ...body.bwd],
      loc: s.loc,
    };
    const fwd: Stmt = { ...(s as Extract<Stmt, { k: 'for' }>), init: init.fwd, body: body.fwd };
    const sbuf = scratch && cx.inFused ? scratchBuffer(cx, s as Extract<Stmt, { k: 'for' }>, scratch) : null;
    if (sbuf) {
      const recomputed = recompute.flatMap((d) => recomputation(cx, d));
      const fwdIn = sbuf.inPlace(body.fwd);
      const bwdIn = fwdIn && sbuf.inPlace([...recomputed, ...body.bwd]);
      const slotsBwd = sbuf.slots.map((x) => ({ ...x, comments: undefined }));
      if (fwdIn && bwdIn) {
        (fwd as Extract<Stmt, { k: 'for' }>).body = [...sbuf.slots, ...fwdIn, ...sbuf.recordScalars];
        (rev as Extract<Stmt, { k: 'for' }>).body = [...slotsBwd, ...sbuf.restoreScalars, ...bwdIn];
      } else {
        (fwd as Extract<Stmt, { k: 'for' }>).body = [...body.fwd, ...sbuf.slots, ...sbuf.record, ...sbuf.recordScalars];
        (rev as Extract<Stmt, { k: 'for' }>).body = [...recomputed, ...slotsBwd, ...sbuf.restore, ...sbuf.restoreScalars, ...body.bwd];
      }
    }
    const snap = scratch && !sbuf ? scratchSnapshot(cx, scratch) : null;
    if (snap) {
      (fwd as Extract<Stmt, { k: 'for' }>).body = [...body.fwd, snap.record];
      (rev as Extract<Stmt, { k: 'for' }>).body = [...recompute.flatMap((d) => recomputation(cx, d)), snap.restoreOrRecompute, ...body.bwd];
    }
    // (a recorded scratch prefix puts its own records in the iteration: no static tape then)
    const st = snap || sbuf ? null : staticTape(cx, s as Extract<Stmt, { k: 'for' }>, body);
    if (st) {
      const fl = fwd as Extract<Stmt, { k: 'for' }>;
      fl.body = st.fwdBody;
      (rev as Extract<Stmt, { k: 'for' }>).body = [...recompute.flatMap((d) => recomputation(cx, d)), ...(scratch ? primalCopy(scratch.prefix) : []), ...st.bwdBody];
    }
    // an index declared by the loop is set by the reversed loop: never handed over or restored
    if (s.k === 'for' && s.init[0]?.k === 'decl') cx.loopScoped.add(i.name);
    // the reversed loop reads its bounds at the loop; its index it sets itself
    const boundReads = primalReads(cx, [{ k: 'expr', e: counted.last }, { k: 'expr', e: counted.revCond }]);
    for (const d of recompute) for (const v of primalReads(cx, [{ k: 'expr', e: d.init! }])) boundReads.add(v);
    if (scratch) for (const v of scratch.reads) boundReads.add(v);
    boundReads.delete(i.name);
    for (const d of recompute) cx.loopScoped.add(d.name);
    cx.readsAt.set(s, boundReads);
    if (sbuf) return { fwd: [...sbuf.fwdPre, ...forInit(cx, fwd, init)], bwd: [rev, ...sbuf.bwdPost, ...init.bwd] };
    if (st) {
      for (const v of primalReads(cx, st.bwdPre)) boundReads.add(v);
      return { fwd: [...st.fwdPre, ...forInit(cx, fwd, init), ...st.fwdPost], bwd: [...st.bwdPre, rev, ...st.bwdPost, ...init.bwd] };
    }
    return { fwd: forInit(cx, fwd, init), bwd: [rev, ...init.bwd] };
  }
  // general loop: count the iterations, replay that many backwards
  const cnt = cx.names.fresh('adCount');
  const cv = { k: 'var', name: cnt, ty: INT } as Extract<Expr, { k: 'var' }>;
  const inc: Stmt = { k: 'assign', target: cv, value: { k: 'bin', op: '+', a: cv, b: { k: 'num', v: 1 }, ty: INT }, op: '+', inc: true };
  let loopF: Stmt;
  if (s.k === 'for') loopF = { ...s, init: [], update: upd.fwd, body: [...body.fwd, inc] };
  else loopF = { ...s, body: [...body.fwd, inc] };
  const fwd: Stmt[] = [...(s.k === 'for' ? init.fwd : []), { k: 'decl', name: cnt, ty: INT, init: { k: 'num', v: 0 }, konst: false }, loopF, { k: 'expr', e: tapeOp(cx, 'pushI', [cv]) }];
  const rv = { k: 'var', name: cx.names.fresh('adCount'), ty: INT } as Extract<Expr, { k: 'var' }>;
  const rev: Stmt = {
    k: 'for',
    init: [{ k: 'decl', name: rv.name, ty: INT, init: tapeOp(cx, 'popI', [], INT), konst: false }],
    cond: { k: 'bin', op: '>', a: rv, b: { k: 'num', v: 0 }, ty: BOOL },
    update: [{ k: 'assign', target: rv, value: { k: 'bin', op: '-', a: rv, b: { k: 'num', v: 1 }, ty: INT }, op: '-', inc: true }],
    body: [...upd.bwd, ...body.bwd],
    loc: s.loc,
  };
  return { fwd, bwd: [rev, ...init.bwd] };
}
