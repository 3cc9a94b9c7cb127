// Static tape: the values a counted loop records go to one buffer indexed by the iteration instead
// of the dynamic tape.
import type { Expr, Stmt, Ty } from '../../../ir/types.js';
import { BOOL, forEachExpr, forEachStmt, INT, isRef, mapExpr, NUM, stmtExprs } from '../../../ir/util.js';
import { type AdjointContext, type Pair, tapeOp } from '../context.js';
import { countedLoop, upwardTrips } from './counted.js';
import { atFusedTop, fusedLoopAssigns } from './fused-reduction.js';

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
  // (directly in a fused iteration one buffer, taken before the fused loop, serves every iteration;
  // or one per iteration when the size changes)
  const inFusedTop = atFusedTop(cx, s);
  // (deeper in a fused iteration, a loop's records go to one stack buffer that every iteration reuses)
  const stacked = !inFusedTop && cx.loopDepth > 0 && cx.inFused && cx.fused !== null && !cx.checkpointing;
  if (cx.info.options.recompute === false || cx.info.options.staticTape === false || (cx.loopDepth > 0 && !inFusedTop && !stacked)) return null;
  const counted = countedLoop(cx, s);
  if (!counted || counted.step !== 1 || (counted.op !== '<' && counted.op !== '<=')) return null;
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
  const scan = (list: Stmt[], top: (x: Stmt) => boolean) => {
    const tops = new Set(list);
    forEachStmt(list, (x) => {
      const exempt = tops.has(x) && top(x);
      for (const e of stmtExprs(x))
        forEachExpr(e, (y) => {
          if (y.k === 'call' || (y.k === 'intr' && /^(tape\.|Tape\.)/.test(y.fn) && !exempt)) other = true;
        });
    });
  };
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
  const span = upwardTrips(counted);
  const size: Expr = I('*', { k: 'intr', fn: 'Math.max', args: [num(0), span], ty: INT }, num(c));
  if (stacked) return stackedTape(cx, body, isPushF, popOf, { start, index: i, count: c, size });
  const { fwdBody, bwdBody } = inSlots(body, isPushF, popOf, bv, inFusedTop ? bv : bb, slot, c);
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
    // (a number only: an array the iteration declares changes its length as it is filled)
    const hoisted = mapExpr(size, (y) => {
      if (y.k !== 'var' || !changed.has(y.name) || isRef(y.ty)) return y;
      const defs = f.body.filter((x): x is Extract<Stmt, { k: 'decl' }> => x.k === 'decl' && x.name === y.name);
      let assigned = false;
      forEachStmt(f.body, (x) => {
        if (x.k === 'assign' && x.target.k === 'var' && x.target.name === y.name) assigned = true;
      });
      return defs.length === 1 && defs[0].init && !assigned && !varies(defs[0].init) ? defs[0].init : y;
    });
    // a size the iteration computes: the iteration takes its own buffer, and gives it back once its
    // backward half has reversed the loop (both halves share the iteration's scope)
    if (varies(hoisted)) return { fwdPre: [take], fwdBody, fwdPost: [], bwdPre: [], bwdBody, bwdPost: [{ k: 'expr', e: tapeOp(cx, 'freeF', [bv]) }] };
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
 * A static tape for a counted loop nested deeper in a fused iteration (a row loop inside a loop over
 * components, inside the loop over data points): a buffer per pass of the outer loop would cost more
 * than the pushes it replaces, so every pass writes its slots on top of one stack buffer taken before
 * the fused loop, `top` moving up by the pass's slots, and the reversed pass, which comes in the reverse
 * order, moves `top` down by the same count before it reads them back. The buffer grows when a pass
 * needs more room (once or twice in a run); each fused iteration leaves `top` where it found it.
 */
function stackedTape(
  cx: AdjointContext,
  body: Pair,
  isPush: (x: Stmt) => boolean,
  popOf: (x: Stmt) => Expr | null,
  loop: { start: Expr; index: Expr; count: number; size: Expr },
): { fwdPre: Stmt[]; fwdBody: Stmt[]; fwdPost: Stmt[]; bwdPre: Stmt[]; bwdBody: Stmt[]; bwdPost: Stmt[] } {
  const f = cx.fused!;
  const bty: Ty = { k: 'arr', elem: NUM, typed: true, ro: false };
  const bv: Extract<Expr, { k: 'var' }> = { k: 'var', name: cx.names.fresh('stackBuf'), ty: bty };
  const top: Extract<Expr, { k: 'var' }> = { k: 'var', name: cx.names.fresh('stackTop'), ty: INT };
  const taken: Extract<Expr, { k: 'var' }> = { k: 'var', name: cx.names.fresh('slots'), ty: INT };
  const given: Extract<Expr, { k: 'var' }> = { k: 'var', name: cx.names.fresh('slots'), ty: INT };
  const num = (v: number): Expr => ({ k: 'num', v });
  const bin = (op: '+' | '-' | '*', a: Expr, b: Expr): Expr => ({ k: 'bin', op, a, b, ty: INT });
  const offset = loop.start.k === 'num' && loop.start.v === 0 ? loop.index : bin('-', loop.index, loop.start);
  const slot = (k: number): Expr => {
    const row = loop.count === 1 ? offset : bin('*', offset, num(loop.count));
    return k === 0 ? bin('+', top, row) : bin('+', bin('+', top, row), num(k));
  };
  f.pre.push(
    { k: 'decl', name: bv.name, ty: bty, init: tapeOp(cx, 'bufF', [num(64)], bty), konst: false, comments: ['// $ad stack tape: the records of a loop nested in the fused iteration, one pass above the other'] },
    { k: 'decl', name: top.name, ty: INT, init: num(0), konst: false },
  );
  f.post.push({ k: 'expr', e: tapeOp(cx, 'freeF', [bv]) });
  const { fwdBody, bwdBody } = inSlots(body, isPush, popOf, bv, bv, slot, loop.count);
  const room: Expr = bin('+', top, taken);
  return {
    fwdPre: [
      { k: 'decl', name: taken.name, ty: INT, init: loop.size, konst: true },
      { k: 'if', c: { k: 'bin', op: '>', a: room, b: { k: 'len', obj: bv }, ty: BOOL }, then: [{ k: 'assign', target: bv, value: tapeOp(cx, 'growF', [bv, room], bty) }], else: [] },
    ],
    fwdBody,
    fwdPost: [{ k: 'assign', target: top, value: bin('+', top, taken), op: '+' }],
    bwdPre: [
      { k: 'decl', name: given.name, ty: INT, init: loop.size, konst: true },
      { k: 'assign', target: top, value: bin('-', top, given), op: '-' },
    ],
    bwdBody,
    bwdPost: [],
  };
}

/**
 * The iteration's pushes as stores into `store` at slot(0), slot(1), … and its pops as loads from
 * `load` at the same slots, in the reverse order of the pushes.
 */
function inSlots(body: Pair, isPush: (x: Stmt) => boolean, popOf: (x: Stmt) => Expr | null, store: Expr, load: Expr, slot: (k: number) => Expr, count: number): { fwdBody: Stmt[]; bwdBody: Stmt[] } {
  let k = 0;
  const fwdBody = body.fwd.map((x): Stmt => (isPush(x) ? { k: 'assign', target: { k: 'idx', obj: store, index: slot(k++), ty: NUM }, value: ((x as Extract<Stmt, { k: 'expr' }>).e as Extract<Expr, { k: 'intr' }>).args[1] } : x));
  k = count;
  const bwdBody = body.bwd.map((x): Stmt => {
    if (popOf(x) === null) return x;
    const value: Expr = { k: 'idx', obj: load, index: slot(--k), ty: NUM };
    return x.k === 'decl' ? { ...x, init: value } : { ...(x as Extract<Stmt, { k: 'assign' }>), value };
  });
  return { fwdBody, bwdBody };
}
