// Fused reductions (`acc += e` over private iterations): each iteration's adjoint runs right after it in
// the forward sweep, seeded with 1, and the accumulated partial adjoints are scaled by acc's adjoint
// in the backward sweep.
import { stmtCalls } from '../../../analysis/activity.js';
import { reductionLoop } from '../../../analysis/reduction.js';
import type { Expr, Field, LValue, Stmt, Ty } from '../../../ir/types.js';
import { BOOL, countedFor, elemTy, forEachExpr, forEachStmt, hasFloat, INT, loopNestDepth, mapStmts, NUM, rootVar, stmtExprs } from '../../../ir/util.js';
import { mergeIncrements } from '../../merge.js';
import { scalarizeLoops } from '../../scalarize.js';
import { calleeForwardRecords } from '../calls.js';
import { type AdjointContext, adjointTy, primalNames, aliasRep, bwhole, hasB, type Pair, tapeOp, tyOfLocal, zerosLike } from '../context.js';
import { storeForced } from '../record.js';
import { storageClasses } from '../signature.js';
import { seq } from '../traverse.js';
import { assignsVar, declaredInside, exprReads } from '../util.js';
import { binomialDirective } from './binomial.js';
import { countedLoop, forInit } from './counted.js';

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
  if (cx.loopDepth > 0 || cx.info.options.fuseReductions === false || (cx.info.options.binomial !== false && binomialDirective(s) !== null) || storeForced(cx, s)) return null;
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
  if (cx.info.options.fuseObjectReductions === false && red.invariants.some((n) => holdsObject(cx.f.params.find((p) => p.name === n)?.ty ?? tyOfLocal(cx, n) ?? NUM))) return null;
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
  const primal = primalNames(cx);
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

/** an object, or an array (of arrays…) of objects */
function holdsObject(t: Ty): boolean {
  return t.k === 'obj' || (t.k === 'arr' && holdsObject(t.elem));
}

/** the fields of an object's adjoint (those holding numbers), each with its primal type */
function adjointFields(ty: Extract<Ty, { k: 'obj' }>): Field[] {
  return ty.fields.filter((f) => hasFloat(f.ty));
}

/** pushes every number of `src` (a number, or nested arrays and objects of numbers), in order */
function pushNumbers(cx: AdjointContext, src: Expr, ty: Ty): Stmt[] {
  if (ty.k === 'num') return [{ k: 'expr', e: tapeOp(cx, 'pushF', [src]) }];
  if (ty.k === 'obj') return adjointFields(ty).flatMap((f) => pushNumbers(cx, { k: 'field', obj: src, name: f.name, ty: adjointTy(cx, f.ty) }, f.ty));
  const z = cx.names.fresh('z');
  const zv: Expr = { k: 'var', name: z, ty: INT };
  const et = elemTy(ty);
  return [countedFor(z, { k: 'len', obj: src }, pushNumbers(cx, { k: 'idx', obj: src, index: zv, ty: adjointTy(cx, et) }, et))];
}

/** the mirror of pushNumbers into `dst` (same shape): dst += scale * popped number, in reverse order */
function popScaledAdd(cx: AdjointContext, dst: LValue, scale: Expr, ty: Ty): Stmt[] {
  if (ty.k === 'num') {
    // (a pop is a statement of its own: code that pops is differentiated again statement by statement)
    const unit = cx.names.fresh('unitb');
    const inc: Expr = { k: 'bin', op: '*', a: scale, b: { k: 'var', name: unit, ty: NUM }, ty: NUM };
    return [
      { k: 'decl', name: unit, ty: NUM, init: tapeOp(cx, 'popF', [], NUM), konst: true },
      { k: 'assign', target: dst, value: { k: 'bin', op: '+', a: dst, b: inc, ty: NUM }, op: '+' },
    ];
  }
  if (ty.k === 'obj') return adjointFields(ty).reverse().flatMap((f) => popScaledAdd(cx, { k: 'field', obj: dst, name: f.name, ty: adjointTy(cx, f.ty) }, scale, f.ty));
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
