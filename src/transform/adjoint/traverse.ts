// Traversal and dispatch: builds both sweeps of a statement list, sending each statement kind to the
// module that differentiates it (assignments, calls, loops, returns, checkpointed regions); branches
// are reversed here (the condition recorded on the tape).
import { stmtCalls } from '../../analysis/activity.js';
import { reductionLoop } from '../../analysis/reduction.js';
import { wholeArrayWrites } from '../../analysis/regions.js';
import type { Expr, Func, LValue, Param, Stmt, Ty } from '../../ir/types.js';
import { BOOL, containsCall, countedFor, declaredNames, elemTy, forEachExpr, forEachStmt, INT, isRef, loopNestDepth, mapExpr, mapStmts, NUM, rootVar, stmtExprs, TAPE, tyOf, VOID } from '../../ir/util.js';
import { DerivNames } from '../context.js';
import { fuseLoops } from '../fuse.js';
import { Names } from '../linearize.js';
import { iterationLocalArrays } from '../locarrays.js';
import { iterationLocalScalars, mergeIncrements } from '../merge.js';
import { scalarizeLoops } from '../scalarize.js';
import { TransformError } from '../tangent.js';
import { assign, deadAssign, increments, linctx, linearizeAt, literalAdjoint } from './assign.js';
import { arrayValueReads, call, calleeForwardRecords, primalOfForward, usesTape } from './calls.js';
import { checkpointedCall, checkpointRegion } from './checkpoint.js';
import { type AdjointContext, adjointNames, adjointTy, aliasRep, assignedIn, bwhole, contains, endsWithReturnInside, exprVaried, hasB, hasDirective, isIntVar, joinPairs, type Pair, tapeOp, tapeVar, tyOfLocal, variedIn, zerosLike } from './context.js';
import { deadSignature, diffDead, readNames } from './liveness.js';
import { cheapDefBefore, cheapReachingDef, mustRecord, primalReads, push, recomputableDecls, recomputation, storeForced, tapePush, toBeRecorded } from './record.js';
import { assignsVar, declaredInside, freshLocal, primalCopy } from './util.js';

// ---------- the two sweeps ----------
export function build(cx: AdjointContext): void {
  // The set of restored variables grows with the pops the backward sweep needs (their indices);
  // with TBR, which kills push is decided by the to-be-recorded analysis of the previous round.
  let lastPushes = '';
  let lastDead = '';
  for (let iter = 0; iter < 12; iter++) {
    // diff-liveness needs the backward sweep's reads: from the previous round
    cx.dead = cx.diffLiveness && iter > 0 ? diffDead(cx, cx.readsAt) : new Set();
    const deadSig = deadSignature(cx);
    cx.prevReadsAt = cx.readsAt;
    cx.readsAt = new Map();
    cx.inverted = new Set();
    cx.pushSites = [];
    cx.fusedBwds = [];
    cx.bwdLocals.clear();
    cx.loopDepth = 0;
    cx.names = new Names(declaredNames(cx.f));
    for (const n of cx.info.mod.order) cx.names.add(n);
    for (const n of cx.info.mod.globals.keys()) cx.names.add(n);
    cx.tapeName = cx.names.fresh('tape');
    cx.b = new DerivNames(cx.info.naming.adjointSuffix, (x) => cx.names.fresh(x));
    cx.seedVar = cx.info.sigs.get(cx.name)!.derivResult ? cx.names.fresh('resultb') : null;
    const pair = seq(cx, cx.f.body);
    const reads = primalReads(cx, pair.bwd);
    let grew = false;
    // what fused iterations' backward halves read is restored there too, but never handed over
    const fusedReads = primalReads(cx, cx.fusedBwds.flat());
    if ([...fusedReads].some((r) => !cx.readsInFused.has(r))) grew = true;
    cx.readsInFused = fusedReads;
    for (const r of [...reads, ...fusedReads])
      if (!cx.restore.has(r)) {
        cx.restore.add(r);
        grew = true;
      }
    cx.built = { fwd: pair.fwd, bwd: pair.bwd };
    cx.readsInBwd = reads;
    // (a fused reduction's iterations run their backward sweeps inside the forward sweep)
    const values = cx.info.options.tbr ? arrayValueReads(cx, [...pair.bwd, ...cx.fusedBwds.flat()]) : null;
    if (values && cx.valueReads && [...values].some((v) => !cx.valueReads!.has(v))) grew = true;
    cx.valueReads = values;
    const deadStable = !cx.diffLiveness || (iter > 0 && deadSig === lastDead && deadSignature(cx, diffDead(cx, cx.readsAt)) === deadSig);
    lastDead = deadSig;
    if (cx.info.options.tbr) {
      cx.tbr = toBeRecorded(cx);
      const pushes = cx.pushSites.join(',');
      if (!grew && pushes === lastPushes && iter > 0 && deadStable) return;
      lastPushes = pushes;
      continue;
    }
    if (!grew && deadStable) return;
  }
  // no fixed point with dead forward code: build again with every primal statement kept
  if (cx.diffLiveness) {
    cx.diffLiveness = false;
    build(cx);
  }
}

export function seq(cx: AdjointContext, ss: Stmt[]): Pair {
  return joinPairs(stmtPairs(cx, ss));
}

/** the sweeps of each statement of a sequence */
export function stmtPairs(cx: AdjointContext, ss: Stmt[]): Pair[] {
  const pairs = ss.map((s) => stmt(cx, s));
  // `best = first(); for (…) if (d < best) best = d`: the first candidate's adjoint runs only when no
  // iteration was taken (else its seed is zero); it must leave the tape alone
  for (let k = 1; k < ss.length; k++) {
    const sel = pairs[k].selection;
    const init = ss[k - 1];
    if (!sel || sel.saved || sel.rerun.else.length) continue;
    const target = init.k === 'decl' && init.init ? init.name : init.k === 'assign' && init.target.k === 'var' ? init.target.name : null;
    const value = init.k === 'decl' ? init.init : init.k === 'assign' ? init.value : null;
    if (!target || !value || !sel.selected.has(target) || readNames(cx, value).some((v) => sel.selected.has(v))) continue;
    if (pairs[k - 1].fwd.some((x) => x.k === 'expr' && x.e.k === 'intr' && x.e.fn.startsWith('tape.')) || usesTape(cx, pairs[k - 1].bwd)) continue;
    sel.rerun.else = pairs[k - 1].bwd;
    pairs[k - 1] = { fwd: pairs[k - 1].fwd, bwd: [] };
  }
  return pairs;
}

export function stmt(cx: AdjointContext, s: Stmt): Pair {
  const p = cx.dead.has(s) ? deadAssign(cx, s as Extract<Stmt, { k: 'decl' | 'assign' }>) : stmtPair(cx, s);
  if (s.k === 'decl' || s.k === 'assign' || s.k === 'expr' || s.k === 'return') cx.readsAt.set(s, primalReads(cx, p.bwd));
  return p;
}

export function stmtPair(cx: AdjointContext, s: Stmt): Pair {
  if (cx.checkpointing !== s && checkpointedCall(cx, s)) return checkpointRegion(cx, [s], s);
  if (s.k === 'block' && isCheckpointBlock(s)) return checkpointRegion(cx, s.body, s);
  switch (s.k) {
    case 'decl':
    case 'assign':
      return assign(cx, s);
    case 'expr':
      if (s.e.k === 'call') return call(cx, s, s.e, null);
      if (s.e.k === 'intr' && s.e.fn === 'push') return push(cx, s, s.e);
      if (s.e.k === 'intr' && (s.e.fn === 'tape.pushF' || s.e.fn === 'tape.pushR')) return tapePush(cx, s, s.e);
      return { fwd: [s], bwd: [] };
    case 'if':
      return ifStmt(cx, s);
    case 'for':
    case 'while':
    case 'do':
      return loop(cx, s);
    case 'block':
      return seq(cx, s.body);
    case 'return':
      return ret(cx, s);
    case 'throw':
      return { fwd: [s], bwd: [] };
    default:
      throw new TransformError(`'${s.k}' should have been lowered before the adjoint`, s);
  }
}

export function ifStmt(cx: AdjointContext, s: Extract<Stmt, { k: 'if' }>): Pair {
  const t = seq(cx, s.then);
  const e = seq(cx, s.else);
  if (t.bwd.length === 0 && e.bwd.length === 0) return { fwd: [{ ...s, then: t.fwd, else: e.fwd }], bwd: [] };
  // Tapenade's control codes: 0 at the end of the then-branch, 1 at the end of the else-branch
  const push = (v: number): Stmt => ({ k: 'expr', e: tapeOp(cx, 'pushI', [{ k: 'num', v }]) });
  const fwd: Stmt = { ...s, then: [...t.fwd, push(0)], else: [...e.fwd, push(1)] };
  const branch = cx.names.fresh('branch');
  const bv: Expr = { k: 'var', name: branch, ty: INT };
  const bwd: Stmt[] = [
    { k: 'decl', name: branch, ty: INT, init: tapeOp(cx, 'popI', [], INT), konst: true },
    { k: 'if', c: { k: 'bin', op: '===', a: bv, b: { k: 'num', v: 0 }, ty: BOOL }, then: t.bwd, else: e.bwd, loc: s.loc },
  ];
  return { fwd: [fwd], bwd };
}

export function loop(cx: AdjointContext, s: Extract<Stmt, { k: 'for' | 'while' | 'do' }>): Pair {
  const slots = binomialDirective(s);
  if (slots !== null) return binomialLoop(cx, s, slots);
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
  const pairs = hasDirective(s, 'ii-loop') ? null : stmtPairs(cx, s.body);
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

/**
 * Is `s` the first assignment of `name` in an iteration of the fused loop, at the top of its body, with
 * `name` private to the iteration? Then the value it overwrites is the previous iteration's, whose
 * adjoint has run already: nothing is recorded.
 */
export function firstPrivateDef(cx: AdjointContext, s: Stmt, name: string): boolean {
  const f = cx.fused;
  if (!f || !f.private.has(name)) return false;
  const k = f.body.indexOf(s);
  if (k < 0) return false;
  for (const earlier of f.body.slice(0, k)) if (assignsVar(earlier, name)) return false;
  return true;
}

/** variables the fused loop declares or assigns (a buffer size reading none of them is taken once) */
export function fusedLoopAssigns(cx: AdjointContext): Set<string> {
  const changed = new Set<string>();
  forEachStmt([cx.fused!.loop], (x) => {
    if (x.k === 'decl') changed.add(x.name);
    if (x.k === 'assign' && x.target.k === 'var') changed.add(x.target.name);
  });
  return changed;
}

/** is `s` a statement of the fused iteration's own body (not nested in a branch or an inner loop)? */
export function atFusedTop(cx: AdjointContext, s: Stmt): boolean {
  return cx.inFused && cx.loopDepth === 1 && cx.fused !== null && cx.fused.body.includes(s);
}

/**
 * A reduction loop — each iteration adds into one active scalar (`acc += e`), everything else it
 * writes is started afresh in the iteration and used nowhere after the loop — has an adjoint linear
 * in acc's adjoint, which stays the same through the reversed loop. So each iteration's adjoint runs
 * at once after the iteration, inside the forward sweep, seeded with 1 and accumulating into unit
 * adjoints of what the loop reads (`xbAcc`); the backward sweep only scales them by acc's adjoint.
 * The values the iteration's adjoint needs are still at hand, nothing outlives an iteration on the
 * tape, and the loop is never run backwards (the hand-written gradient of a sum over data points).
 */
export function fusedReduction(cx: AdjointContext, s: Extract<Stmt, { k: 'for' }>): Pair | null {
  if (cx.loopDepth > 0 || cx.info.options.fuseReductions === false || binomialDirective(s) !== null || storeForced(cx, s)) return null;
  const counted = countedLoop(cx, s);
  if (!counted) return null;
  // worth it when an iteration holds a loop nest (per-iteration state the reversal would record or
  // recompute) or calls whose forward sweeps record; a single inner loop is reversed cheaply already
  // (forward-order loops, static tapes, selection loops: kmeans' scan records one index per point)
  let recordingCalls = false;
  forEachStmt(s.body, (st) => {
    if (stmtCalls(st).some((c) => cx.info.differentiated(c.fn) && calleeForwardRecords(cx.info, c.fn))) recordingCalls = true;
  });
  if (loopNestDepth(s.body) < 2 && !recordingCalls) return null;
  const red = reductionLoop(s, counted.index.name, {
    f: cx.f,
    active: (n) => hasB(cx, n),
    rep: (n) => aliasRep(cx, n),
    calleeWrites: (fn) => cx.info.activity.writes.get(fn),
  });
  if (!red) return null;
  const init = seq(cx, s.init);
  cx.loopDepth++;
  cx.loops.push(s);
  cx.inFused = true;
  const fused = (cx.fused = { loop: s, body: s.body, private: new Set([...red.inside, ...red.written]), pre: [] as Stmt[], post: [] as Stmt[] });
  const body = seq(cx, s.body);
  cx.fused = null;
  cx.inFused = false;
  cx.loopDepth--;
  cx.loops.pop();
  const accB = cx.b.of(red.acc);
  // the iteration's adjoint may put back only what the iteration starts afresh, and never acc
  const primal = declaredNames(cx.f);
  let ok = true;
  forEachStmt(body.bwd, (st) => {
    const r = st.k === 'assign' ? rootVar(st.target) : null;
    if (r === accB || (r && primal.has(r) && !red.inside.has(r) && !red.written.has(r))) ok = false;
  });
  forEachStmt(body.fwd, (st) => {
    for (const e of stmtExprs(st)) if (exprReads(e, accB)) ok = false;
  });
  if (!ok) return null;
  // unit seed for acc; the invariants' adjoints go to their per-unit copies
  const renamed = new Map<string, { of: string; unit: string }>();
  const mentioned = new Set<string>();
  for (const list of [body.fwd, body.bwd])
    forEachStmt(list, (st) => {
      for (const e of stmtExprs(st))
        forEachExpr(e, (x) => {
          if (x.k === 'var') mentioned.add(x.name);
        });
    });
  const suffix = red.acc.charAt(0).toUpperCase() + red.acc.slice(1);
  for (const n of red.invariants) {
    if (!cx.b.known(n) || !mentioned.has(cx.b.of(n))) continue;
    renamed.set(cx.b.of(n), { of: n, unit: cx.names.fresh(cx.b.of(n) + suffix) });
  }
  const rename = (x: Expr): Expr => {
    // (children are renamed first: `e * accB` became `e * 1`)
    if (x.k === 'bin' && x.op === '*' && x.b.k === 'num' && x.b.v === 1) return x.a;
    if (x.k === 'bin' && x.op === '*' && x.a.k === 'num' && x.a.v === 1) return x.b;
    if (x.k !== 'var') return x;
    if (x.name === accB) return { k: 'num', v: 1 };
    const r = renamed.get(x.name);
    return r ? { ...x, name: r.unit } : x;
  };
  const fwdBody = mapStmts(body.fwd, rename);
  let bwdBody = mapStmts(body.bwd, rename);
  // both halves now share one iteration scope: the backward half's own declarations get fresh names
  const fwdDecls = declaredInside(fwdBody);
  const clashes = new Map([...declaredInside(bwdBody)].filter((n) => fwdDecls.has(n)).map((n) => [n, cx.names.fresh(n)]));
  if (clashes.size) {
    bwdBody = mapStmts(bwdBody, (x) => (x.k === 'var' && clashes.has(x.name) ? { ...x, name: clashes.get(x.name)! } : x));
    forEachStmt(bwdBody, (st) => {
      if (st.k === 'decl' && clashes.has(st.name)) st.name = clashes.get(st.name)!;
    });
  }
  if (cx.info.options.merge !== false) {
    const cls = storageClasses(cx);
    const back = new Map([...renamed].map(([b, r]) => [r.unit, b]));
    const storage = (n: string) => cls(back.get(n) ?? n);
    bwdBody = scalarizeLoops(mergeIncrements(bwdBody, storage), storage, (base) => cx.names.fresh(base));
  }
  cx.fusedBwds.push(bwdBody);
  const tyOfName = (n: string): Ty => cx.f.params.find((p) => p.name === n)?.ty ?? tyOfLocal(cx, n) ?? NUM;
  const fwdPre: Stmt[] = [];
  const fwdPost: Stmt[] = [];
  const bwdPost: Stmt[] = [];
  // (the unit adjoints travel as numbers: a reference on the tape would make every array active
  // when this code is differentiated again)
  for (const { of, unit } of renamed.values()) {
    const ty = tyOfName(of);
    const bty = adjointTy(cx, ty);
    const primalVar: Expr = { k: 'var', name: of, ty };
    const unitVar: Expr = { k: 'var', name: unit, ty: bty };
    const scalar = ty.k === 'num';
    fwdPre.push({ k: 'decl', name: unit, ty: bty, init: scalar ? { k: 'num', v: 0 } : zerosLike(cx, primalVar), konst: !scalar });
    fwdPost.push(...pushNumbers(cx, unitVar, ty));
    bwdPost.unshift(...popScaledAdd(cx, bwhole(cx, primalVar) as LValue, { k: 'var', name: accB, ty: NUM }, ty));
  }
  const comment = `// $ad fused reduction: each iteration's adjoint runs now with ${accB} = 1; the backward sweep scales by ${accB}`;
  const loopF: Stmt = { ...s, init: init.fwd, body: [...fwdBody, ...bwdBody], comments: [...(s.comments ?? []), comment] };
  return { fwd: [...fwdPre, ...fused.pre, ...forInit(cx, loopF, init), ...fused.post, ...fwdPost], bwd: [...bwdPost, ...init.bwd] };
}

/** pushes every number of `src` (a number or nested arrays of numbers), in order */
export function pushNumbers(cx: AdjointContext, src: Expr, ty: Ty): Stmt[] {
  if (ty.k === 'num') return [{ k: 'expr', e: tapeOp(cx, 'pushF', [src]) }];
  const z = cx.names.fresh('z');
  const zv: Expr = { k: 'var', name: z, ty: INT };
  const et = elemTy(ty);
  return [countedFor(z, { k: 'len', obj: src }, pushNumbers(cx, { k: 'idx', obj: src, index: zv, ty: adjointTy(cx, et) }, et))];
}

/** the mirror of pushNumbers into `dst` (same shape): dst += scale * popped number, in reverse order */
export function popScaledAdd(cx: AdjointContext, dst: LValue, scale: Expr, ty: Ty): Stmt[] {
  if (ty.k === 'num') {
    // (a pop is a statement of its own: code that pops is differentiated again statement by statement)
    const unit = cx.names.fresh('unitb');
    const inc: Expr = { k: 'bin', op: '*', a: scale, b: { k: 'var', name: unit, ty: NUM }, ty: NUM };
    return [
      { k: 'decl', name: unit, ty: NUM, init: tapeOp(cx, 'popF', [], NUM), konst: true },
      { k: 'assign', target: dst, value: { k: 'bin', op: '+', a: dst, b: inc, ty: NUM }, op: '+' },
    ];
  }
  const z = cx.names.fresh('z');
  const zv: Expr = { k: 'var', name: z, ty: INT };
  const et = elemTy(ty);
  return [
    {
      k: 'for',
      init: [{ k: 'decl', name: z, ty: INT, init: { k: 'bin', op: '-', a: { k: 'len', obj: dst }, b: { k: 'num', v: 1 }, ty: INT }, konst: false }],
      cond: { k: 'bin', op: '>=', a: zv, b: { k: 'num', v: 0 }, ty: BOOL },
      update: [{ k: 'assign', target: zv as LValue, value: { k: 'bin', op: '-', a: zv, b: { k: 'num', v: 1 }, ty: INT }, op: '-', inc: true }],
      body: popScaledAdd(cx, { k: 'idx', obj: dst, index: zv, ty: adjointTy(cx, et) }, scale, et),
    },
  ];
}

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
      if (x.k === 'intr' && (x.fn.startsWith('tape.') || ['push', 'restoreInto', 'addInto', 'zeroFill'].includes(x.fn))) ok = false;
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
export function rerunForward(cx: AdjointContext, iteration: Pair, taken: Stmt[]): Stmt[] {
  const live = primalReads(cx, iteration.bwd);
  const kept: Stmt[] = [];
  for (let k = iteration.fwd.length - 1; k >= 0; k--) {
    const x = iteration.fwd[k];
    if (taken.includes(x)) continue;
    if (x.k === 'assign' && x.target.k === 'var' && !live.has(x.target.name) && removable(cx, x.value)) continue;
    kept.unshift(x);
    for (const v of primalReads(cx, [x])) live.add(v);
  }
  return kept;
}

/** an expression whose evaluation leaves nothing behind: no tape, no array write */
export function removable(cx: AdjointContext, e: Expr): boolean {
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

/**
 * Recompute or record a scratch prefix — chosen at run time by its size (ERA's cost model: recompute
 * what is cheap). A prefix with nested loops (the triangle `qdiff[r] += l[t] * diff[c]`) costs about
 * len²/2 operations per iteration against 2·len values to record: beyond a length of 16 (where the
 * recomputation is four times dearer than the record) the forward sweep records the scratch arrays'
 * final contents (and the prefix's scalars) at the end of the iteration — the body after the prefix
 * only reads them — and the backward sweep puts them back; below, the prefix runs again as before.
 * Both sweeps test the same length, which the loop never changes, so they agree.
 */
export function scratchSnapshot(cx: AdjointContext, scratch: { prefix: Stmt[]; arrays: string[]; scalars: string[] }): { record: Stmt; restoreOrRecompute: Stmt } | null {
  let depth = 0;
  const walk = (list: Stmt[], d: number) => {
    for (const x of list) {
      if (x.k === 'for' || x.k === 'while' || x.k === 'do') {
        depth = Math.max(depth, d + 1);
        walk(x.body, d + 1);
      } else if (x.k === 'if') {
        walk(x.then, d);
        walk(x.else, d);
      } else if (x.k === 'block') walk(x.body, d);
    }
  };
  walk(scratch.prefix, 0);
  if (depth < 2 || !scratch.arrays.length) return null;
  const tyOfName = (n: string): Ty => tyOfLocal(cx, n) ?? NUM;
  const arrays = scratch.arrays.map((n): Extract<Expr, { k: 'var' }> => ({ k: 'var', name: n, ty: tyOfName(n) }));
  if (arrays.some((a) => !isFlatArray(a.ty))) return null;
  const scalars = scratch.scalars.filter((n) => {
    const t = tyOfName(n);
    return t.k === 'num' || t.k === 'int';
  });
  const cond: Expr = { k: 'bin', op: '>', a: { k: 'len', obj: arrays[0] }, b: { k: 'num', v: SNAPSHOT_LENGTH }, ty: BOOL };
  const record: Stmt[] = [];
  const restore: Stmt[] = [];
  for (const a of arrays) {
    const z = cx.names.fresh('z');
    const zv: Expr = { k: 'var', name: z, ty: INT };
    const elem: LValue = { k: 'idx', obj: a, index: zv, ty: NUM };
    record.push(countedFor(z, { k: 'len', obj: a }, [{ k: 'expr', e: tapeOp(cx, 'pushF', [elem]) }]));
    restore.unshift({
      k: 'for',
      init: [{ k: 'decl', name: z, ty: INT, init: { k: 'bin', op: '-', a: { k: 'len', obj: a }, b: { k: 'num', v: 1 }, ty: INT }, konst: false }],
      cond: { k: 'bin', op: '>=', a: zv, b: { k: 'num', v: 0 }, ty: BOOL },
      update: [{ k: 'assign', target: zv as LValue, value: { k: 'bin', op: '-', a: zv, b: { k: 'num', v: 1 }, ty: INT }, op: '-', inc: true }],
      body: [{ k: 'assign', target: elem, value: tapeOp(cx, 'popF', [], NUM) }],
    });
  }
  for (const n of scalars) {
    const v: LValue = { k: 'var', name: n, ty: tyOfName(n) };
    record.push({ k: 'expr', e: tapeOp(cx, 'pushF', [v]) });
    restore.unshift({ k: 'assign', target: v, value: tapeOp(cx, 'popF', [], NUM) });
  }
  return {
    record: { k: 'if', c: cond, then: record, else: [], comments: ['// $ad scratch recorded when longer than ' + SNAPSHOT_LENGTH + ' (recomputed below)'] },
    restoreOrRecompute: { k: 'if', c: cond, then: restore, else: primalCopy(scratch.prefix) },
  };
}

/**
 * Scratch prefixes with nested loops inside a fused reduction iteration: both sweeps of the iteration
 * run back to back, so each scratch array is expanded — one buffer per array, a slot of the array's
 * length per iteration of this loop (the prefix's scalars share one more buffer) — plain stores and
 * loads instead of running the prefix again (GMM's triangle) or pushes and pops. When the sweeps touch
 * an array only element by element, its slot *is* the iteration's copy (`inPlace`: `diff[j]` becomes
 * `diffSlots[diffAt + j]`, nothing copied); otherwise the final contents are copied there and back.
 * The buffers come from the tape's free list and go back after the reversed loop.
 */
export function scratchBuffer(
    cx: AdjointContext,
  s: Extract<Stmt, { k: 'for' }>,
  scratch: { prefix: Stmt[]; arrays: string[]; scalars: string[] },
): {
  fwdPre: Stmt[];
  bwdPost: Stmt[];
  /** the slot offsets of this iteration, at the top of both sweeps' bodies */
  slots: Stmt[];
  record: Stmt[];
  restore: Stmt[];
  recordScalars: Stmt[];
  restoreScalars: Stmt[];
  inPlace: (list: Stmt[]) => Stmt[] | null;
} | null {
  if (cx.info.options.staticTape === false) return null;
  let nested = false;
  forEachStmt(scratch.prefix, (x) => {
    if ((x.k === 'for' || x.k === 'while' || x.k === 'do') && x.body.some((y) => y.k === 'for' || y.k === 'while' || y.k === 'do')) nested = true;
  });
  if (!nested) return null;
  const counted = countedLoop(cx, s);
  if (!counted || counted.step !== 1 || !s.cond || s.cond.k !== 'bin' || (s.cond.op !== '<' && s.cond.op !== '<=')) return null;
  const ini = s.init[0];
  const start = ini.k === 'decl' ? ini.init : ini.k === 'assign' ? ini.value : null;
  if (!start) return null;
  const arrays = scratch.arrays.map((n): Extract<Expr, { k: 'var' }> => ({ k: 'var', name: n, ty: tyOfLocal(cx, n) ?? NUM }));
  if (arrays.some((a) => !isFlatArray(a.ty))) return null;
  const scalars = scratch.scalars
    .map((n): Extract<Expr, { k: 'var' }> => ({ k: 'var', name: n, ty: tyOfLocal(cx, n) ?? NUM }))
    .filter((v) => v.ty.k === 'num' || v.ty.k === 'int');
  const I = (op: '+' | '-' | '*', a: Expr, b: Expr): Expr => (b.k === 'num' && b.v === 0 && op !== '*' ? a : b.k === 'num' && b.v === 1 && op === '*' ? a : { k: 'bin', op, a, b, ty: INT });
  const num = (v: number): Expr => ({ k: 'num', v });
  const span = s.cond.op === '<' ? I('-', s.cond.b, start) : I('+', I('-', s.cond.b, start), num(1));
  const iteration = start.k === 'num' && start.v === 0 ? counted.index : I('-', counted.index, start);
  const trips: Expr = { k: 'intr', fn: 'Math.max', args: [num(0), span], ty: INT };
  const bty: Ty = { k: 'arr', elem: NUM, typed: true, ro: false };
  const fwdPre: Stmt[] = [];
  const bwdPost: Stmt[] = [];
  const slots: Stmt[] = [];
  const expanded = (base: string, stride: Expr) => {
    const buf: Extract<Expr, { k: 'var' }> = { k: 'var', name: cx.names.fresh(`${base}Slots`), ty: bty };
    const at: Extract<Expr, { k: 'var' }> = { k: 'var', name: cx.names.fresh(`${base}At`), ty: INT };
    fwdPre.push({ k: 'decl', name: buf.name, ty: bty, init: tapeOp(cx, 'bufF', [I('*', trips, stride)], bty), konst: true });
    bwdPost.push({ k: 'expr', e: tapeOp(cx, 'freeF', [buf]) });
    slots.push({ k: 'decl', name: at.name, ty: INT, init: I('*', iteration, stride), konst: true });
    return { buf, at };
  };
  const record: Stmt[] = [];
  const restore: Stmt[] = [];
  const where = new Map<string, { buf: Expr; at: Expr }>();
  for (const a of arrays) {
    const x = expanded(a.name, { k: 'len', obj: a });
    where.set(a.name, x);
    const z = cx.names.fresh('z');
    const zv: Expr = { k: 'var', name: z, ty: INT };
    const elem: LValue = { k: 'idx', obj: a, index: zv, ty: NUM };
    const slotOf: LValue = { k: 'idx', obj: x.buf, index: I('+', x.at, zv), ty: NUM };
    record.push(countedFor(z, { k: 'len', obj: a }, [{ k: 'assign', target: slotOf, value: elem }]));
    restore.push(countedFor(z, { k: 'len', obj: a }, [{ k: 'assign', target: elem, value: slotOf }]));
  }
  const recordScalars: Stmt[] = [];
  const restoreScalars: Stmt[] = [];
  if (scalars.length) {
    const x = expanded('scratch', num(scalars.length));
    scalars.forEach((v, j) => {
      const slotOf: LValue = { k: 'idx', obj: x.buf, index: I('+', x.at, num(j)), ty: NUM };
      recordScalars.push({ k: 'assign', target: slotOf, value: v });
      restoreScalars.push({ k: 'assign', target: v, value: slotOf });
    });
  }
  slots[0] = { ...slots[0], comments: ['// $ad scratch arrays expanded: a slot per iteration, reversed at once'] };
  // sizes that no fused iteration changes: one set of buffers serves every iteration
  const f = cx.fused;
  if (f) {
    const changed = fusedLoopAssigns(cx);
    const sizeReads = new Set<string>();
    for (const d of fwdPre) for (const e of stmtExprs(d)) forEachExpr(e, (y) => void (y.k === 'var' && sizeReads.add(y.name)));
    sizeReads.delete(cx.tapeName);
    if (![...sizeReads].some((v) => changed.has(v))) {
      f.pre.push(...fwdPre.splice(0));
      f.post.push(...bwdPost.splice(0));
    }
  }
  const inPlace = (list: Stmt[]): Stmt[] | null => {
    let uses = 0;
    let elementUses = 0;
    let redeclared = false;
    forEachStmt(list, (x) => {
      if (x.k === 'decl' && where.has(x.name)) redeclared = true;
      for (const e of stmtExprs(x))
        forEachExpr(e, (y) => {
          if (y.k === 'var' && where.has(y.name)) uses++;
          if ((y.k === 'idx' || y.k === 'len') && y.obj.k === 'var' && where.has(y.obj.name)) elementUses++;
        });
    });
    if (redeclared || uses !== elementUses) return null;
    return mapStmts(list, (y) => {
      const x = y.k === 'idx' && y.obj.k === 'var' ? where.get(y.obj.name) : undefined;
      return x && y.k === 'idx' ? { ...y, obj: x.buf, index: I('+', x.at, y.index) } : y;
    });
  };
  return { fwdPre, bwdPost, slots, record, restore, recordScalars, restoreScalars, inPlace };
}

/**
 * A static tape for a counted loop (LAGrad): when every iteration records the same number of floats,
 * at the top level of its body, the forward sweep writes them into one buffer sized by the trip count
 * and indexed by the iteration, and the backward sweep reads them back by index — plain array stores
 * and loads instead of a push and a pop per value. The buffer comes from the tape's free list and goes
 * back to it after the reversed loop.
 */
export function staticTape(cx: AdjointContext, s: Extract<Stmt, { k: 'for' }>, body: Pair): { fwdPre: Stmt[]; fwdBody: Stmt[]; fwdPost: Stmt[]; bwdPre: Stmt[]; bwdBody: Stmt[]; bwdPost: Stmt[] } | null {
  // a loop inside another loop would take a buffer per outer iteration: small ones cost more than
  // the pushes they replace
  // (directly in a fused iteration one buffer, taken before the fused loop, serves every iteration)
  const inFusedTop = atFusedTop(cx, s);
  if (cx.info.options.recompute === false || cx.info.options.staticTape === false || (cx.loopDepth > 0 && !inFusedTop)) return null;
  const counted = countedLoop(cx, s);
  if (!counted || counted.step !== 1 || !s.cond || s.cond.k !== 'bin' || (s.cond.op !== '<' && s.cond.op !== '<=')) return null;
  const ini = s.init[0];
  const start = ini.k === 'decl' ? ini.init : ini.k === 'assign' ? ini.value : null;
  if (!start) return null;
  const isPushF = (x: Stmt): x is Extract<Stmt, { k: 'expr' }> & { e: Extract<Expr, { k: 'intr' }> } =>
    x.k === 'expr' && x.e.k === 'intr' && x.e.fn === 'tape.pushF' && x.e.args[0].k === 'var' && x.e.args[0].name === cx.tapeName;
  const popOf = (x: Stmt): Expr | null => {
    const v = x.k === 'assign' ? x.value : x.k === 'decl' ? x.init : null;
    return v && v.k === 'intr' && v.fn === 'tape.popF' && v.args[0].k === 'var' && v.args[0].name === cx.tapeName ? v : null;
  };
  // nothing else in the iteration may use the tape: no nested records, no calls (their sweeps do)
  let other = false;
  const scan = (list: Stmt[], top: (x: Stmt) => boolean) =>
    forEachStmt(list, (x) => {
      const exempt = list.includes(x) && top(x);
      for (const e of stmtExprs(x))
        forEachExpr(e, (y) => {
          if (y.k === 'call' || (y.k === 'intr' && /^(tape\.|Tape\.)/.test(y.fn) && !exempt)) other = true;
        });
    });
  scan(body.fwd, isPushF);
  scan(body.bwd, (x) => popOf(x) !== null);
  const pushes = body.fwd.filter(isPushF);
  const pops = body.bwd.filter((x) => popOf(x) !== null);
  if (other || pushes.length === 0 || pushes.length !== pops.length) return null;
  const c = pushes.length;
  const i = counted.index;
  // two names: a re-run region puts both sweeps in one block
  const buf = cx.names.fresh('tapeBuf');
  const bufBack = cx.names.fresh('tapeBuf');
  const bty: Ty = { k: 'arr', elem: NUM, typed: true, ro: false };
  const bv: Expr = { k: 'var', name: buf, ty: bty };
  const bb: Expr = { k: 'var', name: bufBack, ty: bty };
  const I = (op: '+' | '-' | '*', a: Expr, b: Expr): Expr => (b.k === 'num' && b.v === 0 && op !== '*' ? a : b.k === 'num' && b.v === 1 && op === '*' ? a : { k: 'bin', op, a, b, ty: INT });
  const num = (v: number): Expr => ({ k: 'num', v });
  const slot = (k: number): Expr => I('+', I('*', start.k === 'num' && start.v === 0 ? i : I('-', i, start), num(c)), num(k));
  const span = s.cond.op === '<' ? I('-', s.cond.b, start) : I('+', I('-', s.cond.b, start), num(1));
  const size: Expr = I('*', { k: 'intr', fn: 'Math.max', args: [num(0), span], ty: INT }, num(c));
  let k = 0;
  const fwdBody = body.fwd.map((x): Stmt => (isPushF(x) ? { k: 'assign', target: { k: 'idx', obj: bv, index: slot(k++), ty: NUM }, value: x.e.args[1] } : x));
  // pops come in the reverse order of the pushes
  k = c;
  const bwdBody = body.bwd.map((x): Stmt => {
    if (popOf(x) === null) return x;
    const load: Expr = { k: 'idx', obj: inFusedTop ? bv : bb, index: slot(--k), ty: NUM };
    return x.k === 'decl' ? { ...x, init: load } : { ...(x as Extract<Stmt, { k: 'assign' }>), value: load };
  });
  const take: Stmt = { k: 'decl', name: buf, ty: bty, init: tapeOp(cx, 'bufF', [size], bty), konst: true, comments: ['// $ad static tape: one slot per iteration'] };
  if (inFusedTop) {
    // the size may not change from one fused iteration to the next
    const f = cx.fused!;
    const changed = fusedLoopAssigns(cx);
    const varies = (e: Expr) => {
      let v = false;
      forEachExpr(e, (y) => {
        if ((y.k === 'var' && changed.has(y.name)) || y.k === 'idx' || y.k === 'call') v = true;
      });
      return v;
    };
    // a bound the iteration declares from invariants (`const n = v.length`) is taken by its definition
    const hoisted = mapExpr(size, (y) => {
      if (y.k !== 'var' || !changed.has(y.name)) return y;
      const defs = f.body.filter((x): x is Extract<Stmt, { k: 'decl' }> => x.k === 'decl' && x.name === y.name);
      let assigned = false;
      forEachStmt(f.body, (x) => {
        if (x.k === 'assign' && x.target.k === 'var' && x.target.name === y.name) assigned = true;
      });
      return defs.length === 1 && defs[0].init && !assigned && !varies(defs[0].init) ? defs[0].init : y;
    });
    if (varies(hoisted)) return null;
    f.pre.push({ ...take, init: tapeOp(cx, 'bufF', [hoisted], bty) });
    f.post.push({ k: 'expr', e: tapeOp(cx, 'freeF', [bv]) });
    return { fwdPre: [], fwdBody, fwdPost: [], bwdPre: [], bwdBody, bwdPost: [] };
  }
  return {
    fwdPre: [take],
    fwdBody,
    // on the tape once filled, so that an analysis of this code sees what it holds
    fwdPost: [{ k: 'expr', e: tapeOp(cx, 'pushR', [bv]) }],
    bwdPre: [{ k: 'decl', name: bufBack, ty: bty, init: tapeOp(cx, 'popR', [], bty), konst: true }],
    bwdBody,
    bwdPost: [{ k: 'expr', e: tapeOp(cx, 'freeF', [bb]) }],
  };
}

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

/**
 * `// $ad binomial-ckp [s]` on a time-stepping loop (Griewank's Revolve): the forward sweep saves
 * the loop's state once and runs the plain primal loop; the backward sweep follows the binomial
 * schedule — primal steps re-run from s snapshots, each step taped and reversed just before its
 * adjoint — so the tape holds one step at a time and the snapshots s states, whatever the step count.
 */
export function binomialLoop(cx: AdjointContext, s: Extract<Stmt, { k: 'for' | 'while' | 'do' }>, slots: number): Pair {
  const counted = s.k === 'for' ? countedLoop(cx, s) : null;
  if (s.k !== 'for' || !counted)
    throw new TransformError(
      "'$ad binomial-ckp' needs a counted loop: write it as for (let t = a; t < b; t++) with t and b not assigned in the body and no break, continue or return inside",
      s,
    );
  const init = seq(cx, s.init);
  cx.loopDepth++;
  cx.loops.push(s);
  const body = seq(cx, s.body);
  cx.loopDepth--;
  cx.loops.pop();
  if (body.bwd.length === 0) return { fwd: forInit(cx, { ...s, init: init.fwd, body: body.fwd }, init), bwd: init.bwd };
  const state = loopState(cx, s);
  const i = counted.index;
  const step = counted.step;
  for (const n of declaredInside(s.body)) cx.loopScoped.add(n);
  cx.loopScoped.add(i.name);
  const num = (v: number): Expr => ({ k: 'num', v });
  const v = (name: string, ty: Ty): Extract<Expr, { k: 'var' }> => ({ k: 'var', name, ty });
  const exprSt = (e: Expr): Stmt => ({ k: 'expr', e });
  const primal = primalCopy(s.body);
  // forward sweep: the state before the loop, the first index and the step count go on the tape
  const stepsF = v(cx.names.fresh('adSteps'), INT);
  const fwd: Stmt[] = [...init.fwd];
  for (const x of state) fwd.push(exprSt(ckpSaveOp(cx, x, 'tape')));
  fwd.push(exprSt(tapeOp(cx, 'pushF', [i])));
  fwd.push({ k: 'decl', name: stepsF.name, ty: INT, init: num(0), konst: false });
  fwd.push({ ...s, init: [], body: [...primal, { k: 'assign', target: stepsF, value: { k: 'bin', op: '+', a: stepsF, b: num(1), ty: INT }, op: '+', inc: true }], comments: s.comments });
  fwd.push(exprSt(tapeOp(cx, 'pushI', [stepsF])));
  // backward sweep: the schedule, operation by operation
  const steps = v(cx.names.fresh('adSteps'), INT);
  const first = v(cx.names.fresh('adFirst'), NUM);
  const op = v(cx.names.fresh('adOp'), INT);
  const k = v(cx.names.fresh('adStep'), INT);
  const at = (kk: Expr): Stmt => ({ k: 'assign', target: i, value: { k: 'bin', op: '+', a: first, b: step === 1 ? kk : { k: 'bin', op: '*', a: kk, b: num(step), ty: INT }, ty: NUM } });
  const isOp = (n: number): Expr => ({ k: 'bin', op: '===', a: op, b: num(n), ty: BOOL });
  const advance: Stmt = {
    k: 'for',
    init: [{ k: 'decl', name: k.name, ty: INT, init: tapeOp(cx, 'ckpA', [], INT), konst: false }],
    cond: { k: 'bin', op: '<', a: k, b: tapeOp(cx, 'ckpB', [], INT), ty: BOOL },
    update: [{ k: 'assign', target: k, value: { k: 'bin', op: '+', a: k, b: num(1), ty: INT }, op: '+', inc: true }],
    body: [at(k), ...primalCopy(s.body)],
  };
  const save = state.map((x) => exprSt(ckpSaveOp(cx, x, 'ckp')));
  const load = state.flatMap((x) => ckpLoadOp(cx, x, 'ckp'));
  const turn: Stmt[] = [at(tapeOp(cx, 'ckpA', [], INT)), ...body.fwd, exprSt(tapeOp(cx, 'notePeak', [])), ...body.bwd];
  const schedule: Stmt = {
    k: 'for',
    init: [{ k: 'decl', name: op.name, ty: INT, init: tapeOp(cx, 'ckpNext', [], INT), konst: false }],
    cond: { k: 'bin', op: '!==', a: op, b: num(0), ty: BOOL },
    update: [{ k: 'assign', target: op, value: tapeOp(cx, 'ckpNext', [], INT) }],
    body: [
      {
        k: 'if',
        c: isOp(1),
        then: [advance],
        else: [{ k: 'if', c: isOp(2), then: save, else: [{ k: 'if', c: isOp(3), then: load, else: turn }] }],
        comments: ['// 1: advance (primal steps), 2: take a snapshot, 3: restore one, 4: tape one step and reverse it'],
      },
    ],
    loc: s.loc,
  };
  const bwd: Stmt[] = [
    { k: 'decl', name: steps.name, ty: INT, init: tapeOp(cx, 'popI', [], INT), konst: true },
    { k: 'decl', name: first.name, ty: NUM, init: tapeOp(cx, 'popF', [], NUM), konst: true },
    ...[...state].reverse().flatMap((x) => ckpLoadOp(cx, x, 'tape')),
    { ...exprSt(tapeOp(cx, 'ckpBegin', [steps, num(slots)])), comments: [`// $ad binomial-ckp: ${slots} snapshots`] },
    schedule,
    exprSt(tapeOp(cx, 'ckpFinish', [])),
    ...load,
    exprSt(tapeOp(cx, 'ckpEnd', [])),
    ...init.bwd,
  ];
  // the schedule re-runs primal steps: what they read must hold its value at the loop
  const reads = primalReads(cx, bwd);
  for (const x of state) reads.delete(x.name);
  for (const n of declaredInside(s.body)) reads.delete(n);
  reads.delete(i.name);
  cx.readsAt.set(s, reads);
  return { fwd, bwd };
}

/** Saving a state variable: on the tape (forward sweep) or in the current snapshot slot. */
export function ckpSaveOp(cx: AdjointContext, x: Extract<Expr, { k: 'var' }>, where: 'tape' | 'ckp'): Expr {
  const flat = isFlatArray(x.ty);
  if (!isRef(x.ty)) {
    const val: Expr = x.ty.k === 'bool' ? { k: 'cond', c: x, a: { k: 'num', v: 1 }, b: { k: 'num', v: 0 }, ty: INT } : x;
    return where === 'tape' ? tapeOp(cx, 'pushF', [val]) : tapeOp(cx, 'ckpSaveF', [val]);
  }
  if (where === 'ckp' && flat) return tapeOp(cx, 'ckpSaveA', [x]);
  const copy: Expr = { k: 'intr', fn: 'snapshot', args: [x], ty: x.ty };
  return where === 'tape' ? tapeOp(cx, 'pushR', [copy]) : tapeOp(cx, 'ckpSaveR', [copy]);
}

/** Loading a state variable back, in place for arrays (references held elsewhere stay valid). */
export function ckpLoadOp(cx: AdjointContext, x: Extract<Expr, { k: 'var' }>, where: 'tape' | 'ckp'): Stmt[] {
  if (!isRef(x.ty)) {
    const raw = where === 'tape' ? tapeOp(cx, 'popF', [], NUM) : tapeOp(cx, 'ckpLoadF', [], NUM);
    const val: Expr = x.ty.k === 'bool' ? { k: 'bin', op: '!==', a: raw, b: { k: 'num', v: 0 }, ty: BOOL } : raw;
    return [{ k: 'assign', target: x, value: val }];
  }
  if (where === 'ckp' && isFlatArray(x.ty)) return [{ k: 'expr', e: tapeOp(cx, 'ckpLoadA', [x]) }];
  const src = where === 'tape' ? tapeOp(cx, 'popR', [], x.ty) : tapeOp(cx, 'ckpLoadR', [], x.ty);
  return [{ k: 'expr', e: { k: 'intr', fn: 'restoreInto', args: [x, src], ty: VOID } }];
}

/**
 * The state of a checkpointed loop: variables declared before it that its body writes — scalars it
 * assigns, arrays and objects whose contents it changes (directly, through calls, through aliases).
 */
export function loopState(cx: AdjointContext, s: Extract<Stmt, { k: 'for' }>): Extract<Expr, { k: 'var' }>[] {
  const inner = declaredInside(s.body);
  const tyOfName = new Map<string, Ty>();
  cx.f.params.forEach((p) => tyOfName.set(p.name, p.ty));
  forEachStmt(cx.f.body, (st) => {
    if (st.k === 'decl') tyOfName.set(st.name, st.ty);
  });
  const out = new Map<string, Ty>();
  const contents = (r: string | null, at: Stmt) => {
    if (!r) return;
    let root = r;
    if (inner.has(root)) {
      const rep = cx.fa.aliases.rep(root);
      if (freshLocal(s.body, root)) return;
      if (inner.has(rep) || rep === root)
        throw new TransformError(`'$ad binomial-ckp': cannot tell which array '${root}' writes into; write through the array declared outside the loop`, at);
      root = rep;
    }
    out.set(root, tyOfName.get(root) ?? NUM);
  };
  forEachStmt(s.body, (st) => {
    if (st.k === 'assign' && st.target.k === 'var' && !inner.has(st.target.name)) {
      if (isRef(st.target.ty))
        throw new TransformError(`'$ad binomial-ckp': the loop replaces the array '${st.target.name}'; update it in place (${st.target.name}[j] = …) so that snapshots can restore it`, st);
      out.set(st.target.name, st.target.ty);
    }
    if (st.k === 'assign' && st.target.k !== 'var') contents(rootVar(st.target), st);
    if (st.k === 'expr' && st.e.k === 'intr' && ['push', 'restoreInto', 'addInto', 'zeroFill'].includes(st.e.fn)) contents(rootVar(st.e.args[0]), st);
    for (const c of stmtCalls(st)) {
      const w = cx.info.activity.writes.get(c.fn);
      c.args.forEach((a, j) => {
        if (w?.has(j)) contents(rootVar(a), st);
      });
    }
  });
  out.delete(cx.tapeName);
  return [...out.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, ty]) => ({ k: 'var', name, ty }));
}

/**
 * Local recomputation of scratch arrays (ERA's B slices inside a loop body, recompute.md §4.9): a
 * counted loop whose body starts by filling scratch arrays completely (`for (j…) diff[j] = …`) from
 * values the loop never changes re-runs that prefix at the start of each reversed iteration instead of
 * recording every element it overwrites. The scratch arrays (and scalars the prefix starts afresh,
 * like a running index) must be used nowhere outside the loop, and the prefix's own adjoint must read
 * only their final values: an array it reads is written by one statement of the prefix.
 */
export function scratchPrefix(cx: AdjointContext, loop: Extract<Stmt, { k: 'for' }>, consts: Stmt[]): { prefix: Stmt[]; kills: Stmt[]; reads: Set<string>; arrays: string[]; scalars: string[] } | null {
  const whole = wholeArrayWrites(cx.f);
  const arrays = new Set<string>();
  const scalars = new Set<string>();
  const prefix: Stmt[] = [];
  const kills: Stmt[] = [];
  const innerNames = new Set<string>(); // loop indices and consts of the prefix
  const writers = new Map<string, number>();
  let k = 0;
  for (; k < loop.body.length; k++) {
    const st = loop.body[k];
    if (consts.includes(st)) continue;
    if (storeForced(cx, st)) break;
    const fresh = st.k === 'decl' ? (st.init ? { name: st.name, ty: st.ty, value: st.init } : null) : st.k === 'assign' && st.target.k === 'var' ? { name: st.target.name, ty: st.target.ty, value: st.value } : null;
    if (fresh && (fresh.ty.k === 'num' || fresh.ty.k === 'int')) {
      // a scalar started afresh: nothing it reads may be a scratch value
      const name = fresh.name;
      if (scalars.has(name) || readNames(cx, fresh.value).some((v) => arrays.has(v) || v === name || scalars.has(v))) break;
      scalars.add(name);
      kills.push(st);
      prefix.push(st);
      continue;
    }
    if (st.k !== 'for' || !countedLoop(cx, st)) break;
    const defined = whole.get(st) ?? [];
    // every element write of the loop goes to a scratch array (new ones must be defined whole here)
    let ok = true;
    const writes: Stmt[] = [];
    forEachStmt([st], (x) => {
      if (x.k === 'decl') innerNames.add(x.name);
      if (x === st) return;
      if (x.k === 'assign' && x.target.k === 'var') {
        if (!scalars.has(x.target.name) && !innerNames.has(x.target.name)) ok = false;
      } else if (x.k === 'assign') {
        const r = rootVar(x.target);
        if (!r || (!arrays.has(r) && !defined.includes(r)) || x.target.k !== 'idx' || x.target.obj.k !== 'var') ok = false;
        else writes.push(x);
      } else if (x.k === 'expr' || x.k === 'if' || x.k === 'while' || x.k === 'do' || x.k === 'switch' || x.k === 'return' || x.k === 'break' || x.k === 'continue' || x.k === 'throw') ok = false;
      for (const e of stmtExprs(x))
        forEachExpr(e, (y) => {
          if (y.k === 'call' || (y.k === 'intr' && y.fn.startsWith('tape.'))) ok = false;
        });
    });
    const index = countedLoop(cx, st)!.index.name;
    innerNames.add(index);
    if (!ok || writes.length === 0) break;
    for (const a of defined) arrays.add(a);
    for (const w of writes) {
      const r = rootVar((w as Extract<Stmt, { k: 'assign' }>).target)!;
      writers.set(r, (writers.get(r) ?? 0) + 1);
      kills.push(w);
    }
    prefix.push(st);
  }
  // scalars started after the last filling loop are not part of it
  while (prefix.length && prefix[prefix.length - 1].k !== 'for') {
    const st = prefix.pop()!;
    scalars.delete(st.k === 'decl' ? st.name : ((st as Extract<Stmt, { k: 'assign' }>).target as { name: string }).name);
    kills.splice(kills.indexOf(st), 1);
    k = loop.body.indexOf(st);
  }
  if (arrays.size === 0) return null;
  // after the prefix, the body only reads the scratch values
  let laterWrite = false;
  for (const st of loop.body.slice(k))
    forEachStmt([st], (x) => {
      if (x.k === 'assign') {
        const r = rootVar(x.target);
        if (r && (arrays.has(r) || scalars.has(r))) laterWrite = true;
      }
      for (const c of stmtCalls(x)) if (c.args.some((a) => { const r = rootVar(a); return !!r && arrays.has(r); })) laterWrite = true;
    });
  if (laterWrite) return null;
  // what the prefix reads from outside must not change in the loop
  const local = new Set([...arrays, ...scalars, ...innerNames, ...consts.map((d) => (d as { name: string }).name), countedLoop(cx, loop)!.index.name]);
  const reads = new Set<string>();
  for (const st of prefix) forEachStmt([st], (x) => {
    for (const e of stmtExprs(x)) for (const v of readNames(cx, e)) if (!local.has(v)) reads.add(v);
    if (x.k === 'assign' && x.target.k !== 'var') forEachExpr(x.target, (y) => { if (y.k === 'var' && !local.has(y.name) && y !== x.target) reads.add(y.name); });
  });
  const changed = new Set<string>();
  forEachStmt(loop.body, (x) => {
    if (x.k === 'assign' && x.target.k === 'var') changed.add(x.target.name);
    if (x.k === 'decl') changed.add(x.name);
    if (x.k === 'assign' && x.target.k !== 'var') {
      const r = rootVar(x.target);
      if (r) changed.add(aliasRep(cx, r));
    }
    for (const c of stmtCalls(x)) {
      const w = cx.info.activity.writes.get(c.fn);
      c.args.forEach((a, j) => {
        const r = rootVar(a);
        if (w?.has(j) && r) changed.add(aliasRep(cx, r));
      });
    }
  });
  for (const v of reads) if (changed.has(v) || changed.has(aliasRep(cx, v))) return null;
  // scratch values live only in this loop
  let outside = false;
  const mine = new Set<Stmt>();
  forEachStmt([loop], (x) => void mine.add(x));
  forEachStmt(cx.f.body, (x) => {
    if (mine.has(x)) return;
    if (x.k === 'decl' && (arrays.has(x.name) || scalars.has(x.name)) && (!x.init || x.init.k === 'alloc' || x.init.k === 'num')) return;
    for (const e of stmtExprs(x)) for (const v of readNames(cx, e)) if (arrays.has(v) || scalars.has(v)) outside = true;
    if ((x.k === 'assign' && x.target.k === 'var' && (arrays.has(x.target.name) || scalars.has(x.target.name))) || (x.k === 'decl' && (arrays.has(x.name) || scalars.has(x.name)))) outside = true;
  });
  if (outside) return null;
  // the prefix's adjoint must see final values of the arrays it reads (one writer each)
  const readByAdjoint = new Set<string>();
  for (const st of prefix) forEachStmt([st], (x) => {
    for (const v of cx.prevReadsAt.get(x) ?? []) readByAdjoint.add(v);
  });
  for (const a of arrays) if (readByAdjoint.has(a) && (writers.get(a) ?? 0) > 1) return null;
  return { prefix, kills, reads, arrays: [...arrays].sort(), scalars: [...scalars].sort() };
}

/** Keeps `for (let i = 0; …)` readable when the init needs no pushes. */
export function forInit(cx: AdjointContext, fwd: Stmt, init: Pair): Stmt[] {
  if (fwd.k !== 'for') return [fwd];
  const simple = init.fwd.every((x) => x.k === 'assign' && x.target.k === 'var');
  if (simple) return [fwd];
  return [...init.fwd, { ...fwd, init: [] }];
}

/** `for (i = a; i < b; i += c)` with i, a, b not written in the body, c constant, no jumps. */
export function countedLoop(cx: AdjointContext, s: Extract<Stmt, { k: 'for' }>): { index: Extract<Expr, { k: 'var' }>; last: Expr; revCond: Expr; step: number } | null {
  if (s.init.length !== 1 || s.update.length !== 1 || !s.cond) return null;
  const ini = s.init[0];
  const name = ini.k === 'decl' ? ini.name : ini.k === 'assign' && ini.target.k === 'var' ? ini.target.name : null;
  const start = ini.k === 'decl' ? ini.init : ini.k === 'assign' ? ini.value : null;
  if (!name || !start) return null;
  const up = s.update[0];
  if (up.k !== 'assign' || up.target.k !== 'var' || up.target.name !== name || up.value.k !== 'bin') return null;
  const uv = up.value;
  if (!(uv.a.k === 'var' && uv.a.name === name && uv.b.k === 'num' && (uv.op === '+' || uv.op === '-'))) return null;
  const step = uv.op === '+' ? uv.b.v : -uv.b.v;
  if (!Number.isInteger(step) || step === 0) return null;
  const c = s.cond;
  if (c.k !== 'bin' || !(c.a.k === 'var' && c.a.name === name)) return null;
  const bound = c.b;
  const written = new Set<string>();
  forEachStmt(s.body, (x) => {
    if (x.k === 'assign' && x.target.k === 'var') written.add(x.target.name);
    if (x.k === 'decl') written.add(x.name);
    if (x.k === 'expr' || x.k === 'assign' || x.k === 'decl') {
      // calls may write arrays used in the bounds
      forEachExpr(x.k === 'expr' ? x.e : x.k === 'assign' ? x.value : x.init ?? { k: 'undef' }, (y) => {
        if (y.k === 'call') written.add('*call*');
      });
    }
  });
  const reads = new Set<string>();
  let pure = true;
  for (const e of [start, bound])
    forEachExpr(e, (y) => {
      if (y.k === 'var') reads.add(y.name);
      if (y.k === 'call' || y.k === 'idx' || y.k === 'field' || (y.k === 'intr' && !y.fn.startsWith('Math.'))) pure = false;
    });
  if (!pure || written.has(name) || [...reads].some((r) => written.has(r))) return null;
  const i = { k: 'var', name, ty: INT } as Extract<Expr, { k: 'var' }>;
  const I = (op: '+' | '-' | '*' | '/', a: Expr, b: Expr): Expr => ({ k: 'bin', op, a, b, ty: INT });
  const n = (v: number): Expr => ({ k: 'num', v });
  let last: Expr;
  let revCond: Expr;
  if (step > 0 && (c.op === '<' || c.op === '<=')) {
    const span = c.op === '<' ? I('-', I('-', bound, n(1)), start) : I('-', bound, start);
    last = step === 1 ? (c.op === '<' ? I('-', bound, n(1)) : bound) : I('+', start, I('*', { k: 'intr', fn: 'Math.floor', args: [I('/', span, n(step))], ty: INT }, n(step)));
    revCond = { k: 'bin', op: '>=', a: i, b: start, ty: BOOL };
  } else if (step < 0 && (c.op === '>' || c.op === '>=')) {
    const st = -step;
    const span = c.op === '>' ? I('-', I('-', start, bound), n(1)) : I('-', start, bound);
    last = st === 1 ? (c.op === '>' ? I('+', bound, n(1)) : bound) : I('-', start, I('*', { k: 'intr', fn: 'Math.floor', args: [I('/', span, n(st))], ty: INT }, n(st)));
    revCond = { k: 'bin', op: '<=', a: i, b: start, ty: BOOL };
  } else return null;
  return { index: i, last, revCond, step };
}

/** The (single, final) return: the seed flows into the returned expression. */
export function ret(cx: AdjointContext, s: Extract<Stmt, { k: 'return' }>): Pair {
  cx.retStmt = s;
  const seed = cx.seedVar;
  if (!seed || !s.e) return { fwd: [], bwd: [] };
  const sv: Expr = { k: 'var', name: seed, ty: adjointTy(cx, cx.f.ret) };
  if (isRef(cx.f.ret)) {
    if (s.e.k === 'arrlit' || s.e.k === 'objlit') return { fwd: [], bwd: literalAdjoint(cx, s, s.e, sv as LValue, false) };
    const rb = bwhole(cx, s.e);
    return { fwd: [], bwd: rb ? [{ k: 'expr', e: { k: 'intr', fn: 'addInto', args: [rb, sv], ty: VOID } }] : [] };
  }
  if (!exprVaried(cx, s.e, variedIn(cx, s))) return { fwd: [], bwd: [] };
  const pre: Stmt[] = [];
  const ctx = linctx(cx, s, pre);
  const lin = linearizeAt(cx, s.e, s, pre);
  const incs: Stmt[] = [];
  increments(cx, lin, sv, ctx, incs);
  return { fwd: [], bwd: [...pre, ...incs] };
}

export function seedName(cx: AdjointContext): string {
  return cx.seedVar!;
}

/** declarations of every local at function scope (the sweeps assign them) */
export function localDecls(cx: AdjointContext, bodies: Stmt[][], skip: Set<string>): Stmt[] {
  const out: Stmt[] = [];
  const seen = new Set<string>(skip);
  // variables the sweeps declare themselves (counters, temporaries) are not hoisted
  for (const body of bodies)
    forEachStmt(body, (s) => {
      if (s.k === 'decl') seen.add(s.name);
    });
  const declare = (name: string, ty: Ty) => {
    if (seen.has(name)) return;
    seen.add(name);
    out.push({ k: 'decl', name, ty, init: zeroOf(ty), konst: false });
  };
  for (const body of bodies)
    forEachStmt(body, (s) => {
      if (s.k === 'assign' && s.target.k === 'var') declare(s.target.name, s.target.ty);
    });
  forEachStmt(cx.f.body, (s) => {
    if (s.k === 'decl') declare(s.name, s.ty);
  });
  return out;
}

export function fwdParams(cx: AdjointContext): Param[] {
  const sig = cx.info.sigs.get(cx.name)!;
  const ps: Param[] = [{ name: cx.tapeName, ty: TAPE, role: 'tape' }];
  cx.f.params.forEach((p, i) => {
    ps.push({ name: p.name, ty: p.ty, def: p.def });
    if (sig.derivParams[i] && isRef(p.ty)) ps.push({ name: cx.b.of(p.name), ty: adjointTy(cx, p.ty), role: 'adjoint', of: p.name });
  });
  return ps;
}

export function forward(cx: AdjointContext): Func {
  const { fwd } = cx.built!;
  const params = fwdParams(cx);
  const paramNames = new Set(params.map((p) => p.name));
  // locals whose final value the backward sweep reads are handed over on the tape
  const handover = handoverValues(cx);
  const body: Stmt[] = [...localDecls(cx, [fwd], paramNames), ...fwd];
  for (const h of handover) if (!h.again) body.push({ k: 'expr', e: tapeOp(cx, h.kind === 'F' ? 'pushF' : h.kind === 'I' ? 'pushI' : 'pushR', [h.kind === 'I' ? { k: 'cond', c: h.v, a: { k: 'num', v: 1 }, b: { k: 'num', v: 0 }, ty: INT } : h.v]) });
  const r = cx.retStmt;
  if (r && r.e) body.push({ k: 'return', e: r.e });
  // (fused iterations run adjoint code in the forward sweep)
  const fbody = cx.info.options.merge !== false ? refineLoops(cx, body) : body;
  return { name: adjointNames(cx.info, cx.name).fwd, params, ret: cx.f.ret, body: fbody, exported: true, loc: cx.f.loc, comments: cx.f.comments };
}

export function handoverValues(cx: AdjointContext): { v: Expr; kind: 'F' | 'I' | 'R'; again?: Expr }[] {
  const out: { v: Expr; kind: 'F' | 'I' | 'R'; again?: Expr }[] = [];
  const locals = declaredNames(cx.f);
  const needed = [...cx.readsInBwd].filter((n) => locals.has(n) && !cx.loopScoped.has(n)).sort();
  const tyOfName = new Map<string, Ty>();
  cx.f.params.forEach((p) => tyOfName.set(p.name, p.ty));
  forEachStmt(cx.f.body, (s) => {
    if (s.k === 'decl') tyOfName.set(s.name, s.ty);
  });
  // parameters the body never assigns arrive unchanged from the caller
  const assigned = new Set<string>();
  forEachStmt(cx.f.body, (s) => {
    if (s.k === 'assign' && s.target.k === 'var') assigned.add(s.target.name);
  });
  // adjoints of local arrays used by the backward sweep are handed over with them
  const usedB = new Set<string>();
  forEachStmt(cx.built!.bwd, (s) => {
    for (const e of stmtExprs(s))
      forEachExpr(e, (x) => {
        if (x.k === 'var') usedB.add(x.name);
      });
  });
  const isParam = (n: string) => cx.f.params.some((p) => p.name === n);
  // (a selection loop's re-run iteration allocates the adjoints of its own locals)
  const refLocals = [...locals].filter((n) => !isParam(n) && !cx.rerunLocals.has(n) && isRef(tyOfName.get(n) ?? NUM) && hasB(cx, n) && usedB.has(cx.b.of(n))).sort();
  for (const n of [...new Set([...needed, ...refLocals])].sort()) {
    const ty = tyOfName.get(n) ?? NUM;
    if (isParam(n) && (isRef(ty) || !assigned.has(n))) continue;
    const v: Expr = { k: 'var', name: n, ty };
    // a final value from a cheap assignment of unchanging inputs is evaluated again, not handed over
    const again = needed.includes(n) && (ty.k === 'num' || ty.k === 'int') && cx.info.options.recompute !== false && !endsWithReturnInside(cx) ? cheapDefBefore(cx, { list: cx.f.body, index: cx.f.body.length, parent: null }, n, true) : null;
    if (needed.includes(n)) out.push({ v, kind: ty.k === 'num' || ty.k === 'int' ? 'F' : ty.k === 'bool' ? 'I' : 'R', ...(again ? { again } : {}) });
    if (isRef(ty) && hasB(cx, n) && usedB.has(cx.b.of(n))) out.push({ v: { k: 'var', name: cx.b.of(n), ty: adjointTy(cx, ty) }, kind: 'R' });
  }
  return out;
}

export function backward(cx: AdjointContext): Func {
  const sig = cx.info.sigs.get(cx.name)!;
  const { bwd } = cx.built!;
  const params: Param[] = [{ name: cx.tapeName, ty: TAPE, role: 'tape' }];
  cx.f.params.forEach((p, i) => {
    params.push({ name: p.name, ty: p.ty, def: p.def });
    if (sig.derivParams[i] && isRef(p.ty)) params.push({ name: cx.b.of(p.name), ty: adjointTy(cx, p.ty), role: 'adjoint', of: p.name });
  });
  const seed = sig.derivResult ? seedName(cx) : null;
  if (seed) params.push({ name: seed, ty: adjointTy(cx, cx.f.ret), role: 'seed' });
  const paramNames = new Set(params.map((p) => p.name));
  const body: Stmt[] = [];
  const handover = handoverValues(cx);
  for (let k = handover.length - 1; k >= 0; k--) {
    const h = handover[k];
    if (h.again) {
      body.push({ k: 'assign', target: h.v as LValue, value: h.again });
      continue;
    }
    const pop = h.kind === 'F' ? tapeOp(cx, 'popF', [], NUM) : h.kind === 'I' ? { k: 'bin' as const, op: '===' as const, a: tapeOp(cx, 'popI', [], INT), b: { k: 'num' as const, v: 1 }, ty: BOOL } : tapeOp(cx, 'popR', [], h.v.k === 'var' ? h.v.ty : NUM);
    body.push({ k: 'assign', target: h.v as LValue, value: pop });
  }
  const seedStmts: Stmt[] = [];
  const scalarB: Expr[] = [];
  cx.f.params.forEach((p, i) => {
    if (sig.derivParams[i] && !isRef(p.ty)) scalarB.push({ k: 'var', name: cx.b.of(p.name), ty: NUM });
  });
  // statement-level optimizations of the backward sweep: merged increments, then scalar replacement
  const optimized = cx.info.options.merge === false ? bwd : scalarizeLoops(mergeIncrements(bwd, storageClasses(cx)), storageClasses(cx), (base) => cx.names.fresh(base));
  const allBodies = [body, seedStmts, optimized];
  const decls = localDecls(cx, allBodies, paramNames);
  // adjoint scalars start at zero; adjoints of local arrays arrive with the handover
  const adjDecls = adjointDecls(cx, allBodies, paramNames, new Set(decls.map((d) => (d as { name: string }).name)));
  let fbody: Stmt[] = [...decls, ...adjDecls, ...body, ...seedStmts, ...allBodies[2]];
  if (cx.info.options.merge !== false) fbody = refineLoops(cx, fbody);
  if (scalarB.length === 1) fbody.push({ k: 'return', e: scalarB[0] });
  else if (scalarB.length > 1) fbody.push({ k: 'return', e: { k: 'arrlit', elems: scalarB, ty: { k: 'tuple', elems: scalarB.map(() => NUM), ro: false } } });
  const ret: Ty = scalarB.length === 0 ? VOID : scalarB.length === 1 ? NUM : { k: 'tuple', elems: scalarB.map(() => NUM), ro: false };
  return { name: adjointNames(cx.info, cx.name).bwd, params, ret, body: fbody, exported: true, loc: cx.f.loc };
}

/** storage classes for merging: a variable and its adjoint map to the alias class of the primal */
/** iteration-local adjoint arrays and scalars (their resets go), then fused loops */
export function refineLoops(cx: AdjointContext, body: Stmt[]): Stmt[] {
  const local = iterationLocalScalars(iterationLocalArrays(body, (base) => cx.names.fresh(base)));
  const known = storageClasses(cx);
  const names = new Set<string>();
  for (const n of declaredNames(cx.f)) {
    names.add(n);
    if (hasB(cx, n)) names.add(cx.b.of(n));
  }
  return cx.info.options.fuseLoops === false ? local : fuseLoops(local, (n) => (names.has(n) ? known(n) : null));
}

export function storageClasses(cx: AdjointContext): (name: string) => string {
  const cls = new Map<string, string>();
  for (const n of declaredNames(cx.f)) {
    const rep = aliasRep(cx, n);
    cls.set(n, rep);
    if (hasB(cx, n)) cls.set(cx.b.of(n), `${rep}'b`);
  }
  return (n) => cls.get(n) ?? n;
}

export function adjointDecls(cx: AdjointContext, bodies: Stmt[][], skip: Set<string>, declared: Set<string>): Stmt[] {
  const out: Stmt[] = [];
  const seen = new Set([...skip, ...declared]);
  const bnames = new Map<string, Ty>();
  // every adjoint variable mentioned in the sweeps
  const primal = declaredNames(cx.f);
  const tyOfName = new Map<string, Ty>();
  cx.f.params.forEach((p) => tyOfName.set(p.name, p.ty));
  forEachStmt(cx.f.body, (s) => {
    if (s.k === 'decl') tyOfName.set(s.name, s.ty);
  });
  for (const n of primal) if (hasB(cx, n)) bnames.set(cx.b.of(n), tyOfName.get(n) ?? NUM);
  for (const body of bodies)
    forEachStmt(body, (s) => {
      const visit = (e: Expr) =>
        forEachExpr(e, (x) => {
          if (x.k === 'var' && bnames.has(x.name) && !seen.has(x.name)) {
            seen.add(x.name);
            const t = bnames.get(x.name)!;
            out.push({ k: 'decl', name: x.name, ty: adjointTy(cx, t), init: zeroOf(adjointTy(cx, t)), konst: false });
          }
        });
      if (s.k === 'assign') {
        visit(s.target);
        visit(s.value);
      } else if (s.k === 'decl' && s.init) visit(s.init);
      else if (s.k === 'expr') visit(s.e);
      else if (s.k === 'if') visit(s.c);
    });
  for (const p of cx.f.params) {
    const bn = hasB(cx, p.name) ? cx.b.of(p.name) : null;
    if (bn && !isRef(p.ty) && !seen.has(bn)) {
      seen.add(bn);
      out.push({ k: 'decl', name: bn, ty: NUM, init: { k: 'num', v: 0 }, konst: false });
    }
  }
  return out;
}

export function head(cx: AdjointContext): Func {
  const sig = cx.info.sigs.get(cx.name)!;
  const nm = adjointNames(cx.info, cx.name);
  const params: Param[] = [];
  const fargs: Expr[] = [tapeVar(cx)];
  const bargs: Expr[] = [tapeVar(cx)];
  cx.f.params.forEach((p, i) => {
    params.push({ name: p.name, ty: p.ty, def: p.def });
    const pv: Expr = { k: 'var', name: p.name, ty: p.ty };
    fargs.push(pv);
    bargs.push(pv);
    if (sig.derivParams[i] && isRef(p.ty)) {
      const bn = cx.b.of(p.name);
      params.push({ name: bn, ty: adjointTy(cx, p.ty), role: 'adjoint', of: p.name });
      fargs.push({ k: 'var', name: bn, ty: adjointTy(cx, p.ty) });
      bargs.push({ k: 'var', name: bn, ty: adjointTy(cx, p.ty) });
    }
  });
  const body: Stmt[] = [{ k: 'decl', name: cx.tapeName, ty: TAPE, init: { k: 'intr', fn: 'Tape.acquire', args: [], ty: TAPE }, konst: true }];
  if (sig.derivResult) {
    const seed = seedName(cx);
    params.push({ name: seed, ty: adjointTy(cx, cx.f.ret), role: 'seed' });
    bargs.push({ k: 'var', name: seed, ty: adjointTy(cx, cx.f.ret) });
  }
  body.push({ k: 'expr', e: { k: 'call', fn: nm.fwd, args: fargs, ty: cx.f.ret } });
  // the backward sweep restores arrays to their inputs: keep what the primal left in them
  const w = cx.info.activity.writes.get(cx.name);
  const snaps: { p: Param; n: string }[] = [];
  cx.f.params.forEach((p, i) => {
    if (w?.has(i) && cx.info.options.primalResults !== false) {
      const n = cx.names.fresh(`${p.name}Out`);
      snaps.push({ p, n });
      body.push({ k: 'decl', name: n, ty: p.ty, init: { k: 'intr', fn: 'snapshot', args: [{ k: 'var', name: p.name, ty: p.ty }], ty: p.ty }, konst: true });
    }
  });
  const scalarCount = cx.f.params.filter((p, i) => sig.derivParams[i] && !isRef(p.ty)).length;
  const rty: Ty = scalarCount === 0 ? VOID : scalarCount === 1 ? NUM : { k: 'tuple', elems: Array(scalarCount).fill(NUM), ro: false };
  const bcall: Expr = { k: 'call', fn: nm.bwd, args: bargs, ty: rty };
  const resName = cx.names.fresh('adjoints');
  if (scalarCount) body.push({ k: 'decl', name: resName, ty: rty, init: bcall, konst: true });
  else body.push({ k: 'expr', e: bcall });
  for (const s of snaps) body.push({ k: 'expr', e: { k: 'intr', fn: 'restoreInto', args: [{ k: 'var', name: s.p.name, ty: s.p.ty }, { k: 'var', name: s.n, ty: s.p.ty }], ty: VOID } });
  body.push({ k: 'expr', e: { k: 'intr', fn: 'Tape.release', args: [tapeVar(cx)], ty: VOID } });
  if (scalarCount) body.push({ k: 'return', e: { k: 'var', name: resName, ty: rty } });
  return { name: nm.b, params, ret: rty, body, exported: true, loc: cx.f.loc, comments: cx.f.comments };
}




export function zeroOf(t: Ty): Expr | null {
  switch (t.k) {
    case 'num':
    case 'int':
      return { k: 'num', v: 0 };
    case 'bool':
      return { k: 'bool', v: false };
    default:
      return null;
  }
}

/** scratch arrays of a quadratic prefix longer than this are recorded rather than recomputed */
export const SNAPSHOT_LENGTH = 16;

/** The snapshot count of a `// $ad binomial-ckp [s]` directive on a loop, or null without one. */
export function binomialDirective(s: Stmt): number | null {
  for (const c of s.comments ?? []) {
    const m = /\$ad\s+binomial-ckp\b(?:\s+(\d+))?/.exec(c);
    if (m) return m[1] ? Math.max(1, parseInt(m[1], 10)) : DEFAULT_SNAPSHOTS;
  }
  return null;
}

/** snapshots of a binomial-ckp loop that does not say how many */
export const DEFAULT_SNAPSHOTS = 50;

export function isFlatArray(t: Ty): boolean {
  return t.k === 'arr' && (t.elem.k === 'num' || t.elem.k === 'int');
}

export function exprReads(e: Expr, name: string): boolean {
  let found = false;
  forEachExpr(e, (x) => {
    if (x.k === 'var' && x.name === name) found = true;
  });
  return found;
}

/** the block the front end makes of the statements between checkpoint-start and checkpoint-end */
export function isCheckpointBlock(s: Extract<Stmt, { k: 'block' }>): boolean {
  return !s.label && hasDirective(s, 'checkpoint-region');
}
