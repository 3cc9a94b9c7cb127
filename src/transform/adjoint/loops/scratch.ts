// Scratch prefixes of counted loops: iteration-local arrays computed at the top of an iteration are
// recomputed in the backward sweep, or kept in a per-iteration buffer or a snapshot when that is cheaper.
import { stmtCalls } from '../../../analysis/activity.js';
import { wholeArrayWrites } from '../../../analysis/regions.js';
import type { Expr, LValue, Stmt, Ty } from '../../../ir/types.js';
import { BOOL, countedFor, forEachExpr, forEachStmt, INT, mapStmts, NUM, rootVar, stmtExprs } from '../../../ir/util.js';
import { type AdjointContext, aliasRep, tapeOp, tyOfLocal } from '../context.js';
import { readNames } from '../liveness.js';
import { storeForced } from '../record.js';
import { isFlatArray, primalCopy } from '../util.js';
import { countedLoop, upwardTrips } from './counted.js';
import { fusedLoopAssigns } from './fused-reduction.js';

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
  if (!counted || counted.step !== 1 || (counted.op !== '<' && counted.op !== '<=')) return null;
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
  const span = upwardTrips(counted);
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

/** scratch arrays of a quadratic prefix longer than this are recorded rather than recomputed */
const SNAPSHOT_LENGTH = 16;
