// How a call is differentiated: a differentiated callee's f_fwd in the forward sweep and its f_bwd in
// the backward sweep (or snapshots around a passive call), and what a callee's sweeps record and read
// (queried by its callers).
import type { Expr, LValue, Stmt } from '../../ir/types.js';
import { forEachExpr, forEachOwnExpr, forEachStmt, hasFloat, isRef, NUM, rootVar, stmtExprs, tyOf, VOID } from '../../ir/util.js';
import type { ProgramInfo } from '../context.js';
import { bref, declAsAssign, increments, linctx, linearizeAt } from './assign.js';
import { type AdjointContext, adjointNames, aliasRep, bwhole, createContext, exprVaried, hasB, type Pair, tapeOp, tapeVar, variedIn, zerosLike } from './context.js';
import { readNames } from './liveness.js';
import { mustRecord, saveOnKill } from './record.js';
import { growShadow, shadowLengthRestore } from './grown-lengths.js';
import { holdShadow, rebuildsFromOld } from './references.js';
import { handoverValues } from './signature.js';
import { reused } from '../reuse.js';

const sweepTables = new WeakMap<ProgramInfo, { fwd: Map<string, string>; bwd: Map<string, string> }>();

/** the differentiated functions by the names of their forward and backward sweeps (one table per program) */
function sweepNames(info: ProgramInfo): { fwd: Map<string, string>; bwd: Map<string, string> } {
  let t = sweepTables.get(info);
  if (!t) {
    t = { fwd: new Map(), bwd: new Map() };
    for (const m of info.mod.order) {
      if (!info.differentiated(m)) continue;
      const names = adjointNames(info, m);
      if (!t.fwd.has(names.fwd)) t.fwd.set(names.fwd, m);
      if (!t.bwd.has(names.bwd)) t.bwd.set(names.bwd, m);
    }
    sweepTables.set(info, t);
  }
  return t;
}

/** the differentiated function whose backward sweep is named `fn`, if any */
function primalOfBackward(info: ProgramInfo, fn: string): string | undefined {
  return sweepNames(info).bwd.get(fn);
}

/**
 * Arrays whose element values the backward sweep `bwd` reads: any use but `.length`, and as an
 * argument of a callee's backward sweep only if that callee reads the values of that parameter.
 */
export function arrayValueReads(cx: AdjointContext, bwd: Stmt[]): Set<string> {
  // occurrences, less those as `.length` and as arguments a callee does not read (nodes may be shared)
  const uses = new Map<string, number>();
  const count = (name: string, k: number) => uses.set(name, (uses.get(name) ?? 0) + k);
  const visit = (y: Expr) => {
    if (y.k === 'var' && isRef(y.ty)) count(y.name, 1);
    if (y.k === 'len' && y.obj.k === 'var') count(y.obj.name, -1);
    // (setting a grown array's length back reads none of its values: grown-lengths.ts)
    if (y.k === 'intr' && y.fn === 'truncate' && y.args[0].k === 'var') count(y.args[0].name, -1);
    if (y.k !== 'call') return;
    const callee = primalOfBackward(cx.info, y.fn);
    const reads = callee ? calleeBackwardReads(cx.info, callee) : null;
    if (!callee || !reads) return;
    const bwdParams = backwardParamNames(cx, callee);
    y.args.forEach((a, j) => {
      const param = bwdParams[j];
      if (a.k === 'var' && isRef(a.ty) && param && !reads.has(param)) count(a.name, -1);
    });
  };
  forEachStmt(bwd, (st) => forEachOwnExpr(st, visit));
  const out = new Set<string>();
  for (const [n, k] of uses) if (k > 0) out.add(aliasRep(cx, n));
  return out;
}

/** per argument of `name`'s backward sweep: the primal parameter it passes, or null (tape, adjoints, seed) */
function backwardParamNames(cx: AdjointContext, name: string): (string | null)[] {
  const g = cx.info.func(name);
  const sig = cx.info.sigs.get(name)!;
  const out: (string | null)[] = [null];
  g.params.forEach((p, j) => {
    out.push(p.name);
    if (sig.derivParams[j] && isRef(p.ty)) out.push(null);
  });
  return out;
}

/**
 * Variables whose values this function's backward sweep reads (an array's length alone does not
 * count: restoring elements never changes it).
 */
function backwardValueReads(cx: AdjointContext): Set<string> {
  const all = new Map<string, number>();
  const lengthOnly = new Map<string, number>();
  const visit = (x: Expr) => {
    if (x.k === 'var') all.set(x.name, (all.get(x.name) ?? 0) + 1);
    // (a `.length`, or a grown array's length set back: grown-lengths.ts)
    const lengthOf = x.k === 'len' ? x.obj : x.k === 'intr' && x.fn === 'truncate' ? x.args[0] : null;
    if (lengthOf?.k === 'var') lengthOnly.set(lengthOf.name, (lengthOnly.get(lengthOf.name) ?? 0) + 1);
  };
  forEachStmt(cx.built!.bwd, (st) => {
    forEachOwnExpr(st, visit);
    if (st.k === 'assign' && st.target.k === 'var') all.set(st.target.name, (all.get(st.target.name) ?? 0) - 1);
  });
  const out = new Set<string>();
  for (const [n, k] of all) if (k > (lengthOnly.get(n) ?? 0)) out.add(n);
  // a parameter the backward sweep passes on is read as its callee reads it
  for (const v of arrayValueReads(cx, cx.built!.bwd)) out.add(v);
  // final values evaluated again at the start of the backward sweep (`x0 = xy[0]`) read their inputs
  // there: a caller that overwrites `xy` between the two sweeps must restore it first
  for (const h of handoverValues(cx))
    if (h.again)
      forEachExpr(h.again, (x) => {
        if (x.k === 'var') out.add(x.name);
      });
  return out;
}

/** a passive call: arrays it writes are snapshotted before it when the backward sweep reads them */
export function passiveCallSnapshots(cx: AdjointContext, s: Stmt, c: Extract<Expr, { k: 'call' }>): Pair {
  const fwd: Stmt[] = [];
  const bwd: Stmt[] = [];
  const w = cx.info.activity.writes.get(c.fn);
  c.args.forEach((a, j) => {
    const r = rootVar(a);
    if (w?.has(j) && r && mustRecord(cx, s, r, true)) {
      fwd.push({ k: 'expr', e: tapeOp(cx, 'pushR', [{ k: 'intr', fn: 'snapshot', args: [a], ty: tyOf(a) }]) });
      bwd.unshift({ k: 'expr', e: { k: 'intr', fn: 'restoreInto', args: [a, tapeOp(cx, 'popR', [], tyOf(a))], ty: VOID } });
    }
  });
  return { fwd, bwd };
}

export function call(cx: AdjointContext, s: Stmt, c: Extract<Expr, { k: 'call' }>, target: LValue | null): Pair {
  const g = cx.info.func(c.fn);
  const names = adjointNames(cx.info, c.fn);
  if (!cx.info.differentiated(c.fn)) {
    const { fwd, bwd } = passiveCallSnapshots(cx, s, c);
    const save = target ? saveOnKill(cx, s, target, s.k === 'decl') : { fwd: [], bwd: [] };
    const primal: Stmt = s.k === 'decl' ? declAsAssign(cx, s) : s;
    return { fwd: [...fwd, ...save.fwd, primal], bwd: [...save.bwd, ...bwd] };
  }
  const sig = cx.info.sigs.get(c.fn)!;
  const fargs: Expr[] = [tapeVar(cx)];
  const bargs: Expr[] = [tapeVar(cx)];
  // `g(b, b[0])` with g writing b: the backward call would read b[0] before the callee's backward
  // sweep puts it back, so such a value is kept in a temporary, recorded after the call
  const writes = cx.info.activity.writes.get(c.fn);
  const written = new Set<string>();
  c.args.forEach((a, j) => {
    const r = rootVar(a);
    if (writes?.has(j) && r) written.add(aliasRep(cx, r));
  });
  const argDecls: Stmt[] = [];
  const argPushes: Stmt[] = [];
  const argPops: Stmt[] = [];
  c.args.forEach((a, j) => {
    if (written.size && !isRef(g.params[j].ty) && (g.params[j].ty.k === 'num' || g.params[j].ty.k === 'int') && readNames(cx, a).some((n) => written.has(aliasRep(cx, n)))) {
      // (two names: a checkpointed call puts both sweeps in one block)
      const tmp: Extract<Expr, { k: 'var' }> = { k: 'var', name: cx.names.fresh(`${g.params[j].name}Arg`), ty: g.params[j].ty };
      const back: Extract<Expr, { k: 'var' }> = { ...tmp, name: cx.names.fresh(`${g.params[j].name}Arg`) };
      argDecls.push({ k: 'decl', name: tmp.name, ty: tmp.ty, init: a, konst: true });
      argPushes.push({ k: 'expr', e: tapeOp(cx, 'pushF', [tmp]) });
      argPops.unshift({ k: 'decl', name: back.name, ty: back.ty, init: tapeOp(cx, 'popF', [], NUM), konst: true });
      fargs.push(tmp);
      bargs.push(back);
    } else if (g.params[j].ty.k === 'tape' && cx.info.idleTapes.get(c.fn)?.has(g.params[j].name)) {
      // a tape the callee never records on (analysis/idle-tapes.ts): the sweeps pass their own, so
      // the caller need not take one, keep it until the backward sweep, nor hand it over
      fargs.push(tapeVar(cx));
      bargs.push(tapeVar(cx));
    } else {
      fargs.push(a);
      bargs.push(a);
    }
    if (sig.derivParams[j] && isRef(g.params[j].ty)) {
      const ab = bwhole(cx, a);
      if (ab) {
        fargs.push(ab);
        bargs.push(ab);
      } else freshShadowArg(cx, a, g.params[j].name, { argDecls, argPushes, argPops, fargs, bargs });
    }
  });
  const fcall: Expr = { k: 'call', fn: names.fwd, args: fargs, ty: g.ret, loc: c.loc };
  const save = target ? saveOnKill(cx, s, target, s.k === 'decl') : { fwd: [], bwd: [] };
  const root = target ? rootVar(target) : null;
  const tActive = !!target && !!root && hasFloat(target.ty) && hasB(cx, root);
  // `a[i] = g(a)`: the element is overwritten after the callee ran (it may write a[i] itself), and the
  // callee's backward sweep must see a[i] as the call left it: its old value is recorded after the
  // call and restored before the callee's backward sweep, and the seed a̅[i] is taken out before it
  // `x = g(x)`, `k = g(a, k)`: likewise for a number rebuilt from its own old value (the callee's
  // backward sweep reads its arguments at the call's pre-state)
  const element = !!target && !isRef(target.ty) && (target.k !== 'var' || (!!root && save.bwd.length > 0 && rebuildsFromOld(root, c.args)));
  // `v = g(v)` with v an array or object: likewise the old reference is recorded after the call, and
  // the backward sweep holds the new value's shadow while it puts the old one back (references.ts),
  // so that the callee's backward sweep sees its arguments as they were
  const rebind = !!target && !!root && isRef(target.ty) && tActive && save.bwd.length > 0 && rebuildsFromOld(root, c.args);
  const fwd: Stmt[] = [];
  fwd.push(...argDecls);
  if (element || rebind) {
    const res = cx.names.fresh(`${c.fn}Result`);
    fwd.push({ k: 'decl', name: res, ty: target!.ty, init: fcall, konst: true, loc: s.loc }, ...argPushes, ...save.fwd, { k: 'assign', target: target!, value: { k: 'var', name: res, ty: target!.ty }, loc: s.loc });
    // (an element stored past its array's end: the shadow grows with it, grown-lengths.ts)
    if (element) fwd.push(...growShadow(cx, target!));
  } else {
    fwd.push(...save.fwd);
    if (target) fwd.push({ k: 'assign', target, value: fcall, loc: s.loc });
    else fwd.push({ k: 'expr', e: fcall, loc: s.loc });
    fwd.push(...argPushes);
  }
  // the adjoint of a returned array is allocated with it
  if (target && isRef(target.ty) && tActive) fwd.push({ k: 'assign', target: bwhole(cx, target) as LValue, value: zerosLike(cx, target) });
  const bwd: Stmt[] = [];
  let seedReset: Stmt | null = null; // the result's adjoint restarts from zero after the call
  const seedFirst: Stmt[] = []; // element targets: restore, then take the seed out, then the call
  if (element) seedFirst.push(...save.bwd);
  let held: Expr | null = null;
  if (rebind) {
    const h = holdShadow(cx, bwhole(cx, target!)!);
    held = h.held;
    seedFirst.push(h.decl, ...save.bwd);
  }
  if (sig.derivResult) {
    if (tActive && element) {
      const tb = bref(cx, target!)!;
      const seed = cx.names.fresh(`${c.fn}Resultb`);
      seedFirst.push({ k: 'decl', name: seed, ty: NUM, init: tb, konst: true }, { k: 'assign', target: tb, value: { k: 'num', v: 0 } });
      if (target!.k === 'idx') seedFirst.push(...shadowLengthRestore(cx, target!, bwhole(cx, target!.obj)));
      bargs.push({ k: 'var', name: seed, ty: NUM });
    } else if (tActive && !isRef(target!.ty)) {
      bargs.push(bref(cx, target!)!);
      seedReset = { k: 'assign', target: bref(cx, target!)!, value: { k: 'num', v: 0 } };
    } else if (held) bargs.push(held);
    else if (tActive) bargs.push(bwhole(cx, target!)!);
    else bargs.push(isRef(g.ret) ? zerosLike(cx, target ?? c) : { k: 'num', v: 0 });
  }
  const scalarIdx = c.args.map((_, j) => j).filter((j) => sig.derivParams[j] && !isRef(g.params[j].ty));
  const bcall: Expr = { k: 'call', fn: names.bwd, args: bargs, ty: scalarIdx.length === 0 ? VOID : scalarIdx.length === 1 ? NUM : { k: 'tuple', elems: scalarIdx.map(() => NUM), ro: false }, loc: c.loc };
  const V = variedIn(cx, s);
  // the callee's backward sweep pops its part of the tape first; then the target's old value is
  // restored, and the argument adjoints flow through the arguments at the pre-state
  const restoreAfter = element || rebind ? [] : save.bwd;
  bwd.push(...seedFirst, ...argPops);
  if (scalarIdx.length === 0) {
    bwd.push({ k: 'expr', e: bcall });
    if (seedReset) bwd.push(seedReset);
    bwd.push(...restoreAfter);
  } else {
    const res = cx.names.fresh(`${c.fn}Adj`);
    const rv: Expr = { k: 'var', name: res, ty: bcall.ty };
    bwd.push({ k: 'decl', name: res, ty: bcall.ty, init: bcall, konst: true });
    if (seedReset) bwd.push(seedReset);
    bwd.push(...restoreAfter);
    scalarIdx.forEach((j, n) => {
      const a = c.args[j];
      if (!exprVaried(cx, a, V)) return;
      const adj: Expr = scalarIdx.length === 1 ? rv : { k: 'idx', obj: rv, index: { k: 'num', v: n }, ty: NUM };
      const pre: Stmt[] = [];
      const ctx = linctx(cx, s, pre);
      const lin = linearizeAt(cx, a, s, pre);
      const incs: Stmt[] = [];
      increments(cx, lin, adj, ctx, incs);
      bwd.push(...pre, ...incs);
    });
  }
  return { fwd, bwd };
}

/** the function whose forward sweep is `fwdName` */
export function primalOfForward(cx: AdjointContext, fwdName: string): string | null {
  return sweepNames(cx.info).fwd.get(fwdName) ?? null;
}

/** does this function's forward sweep record anything (itself or through its callees)? */
function forwardRecords(cx: AdjointContext): boolean {
  let records = false;
  forEachStmt(cx.built!.fwd, (st) => {
    for (const e of stmtExprs(st))
      forEachExpr(e, (y) => {
        if (y.k === 'intr' && /^(tape\.|Tape\.)/.test(y.fn)) records = true;
        if (y.k === 'call') {
          const fn = primalOfForward(cx, y.fn);
          if (fn && calleeForwardRecords(cx.info, fn)) records = true;
        }
      });
  });
  return records;
}

/** does the backward part `bwd` use the tape (pops, or callees' backward sweeps that pop)? */
export function usesTape(cx: AdjointContext, bwd: Stmt[]): boolean {
  let uses = false;
  forEachStmt(bwd, (st) => {
    for (const e of stmtExprs(st))
      forEachExpr(e, (y) => {
        if (y.k === 'intr' && /^(tape\.|Tape\.)/.test(y.fn)) uses = true;
        if (y.k === 'call') {
          const n = cx.info.mod.order.find((m) => cx.info.differentiated(m) && adjointNames(cx.info, m).bwd === y.fn);
          if (!n || calleeForwardRecords(cx.info, n)) uses = true;
        }
      });
  });
  return uses;
}

/** what a caller needs to know of a callee's adjoint, and the context it was learnt from (../index.ts takes it) */
interface CalleeSummary {
  /** does its forward sweep record anything? */
  records: boolean;
  /** the parameters whose values its backward sweep reads (null: every one) */
  reads: Set<string> | null;
  cx: AdjointContext | null;
}

const summaries = new WeakMap<ProgramInfo, Map<string, CalleeSummary>>();

/**
 * Builds the adjoint of `name` once per program and learns what its callers ask. While it is being
 * built (a recursion) the answer is the safe one: it records, and it reads every parameter.
 */
function calleeSummary(info: ProgramInfo, name: string): CalleeSummary {
  let cache = summaries.get(info);
  if (!cache) summaries.set(info, (cache = new Map()));
  const hit = cache.get(name);
  if (hit) return hit;
  // a hand-written adjoint rule records nothing (its forward sweep is the primal call, ../custom.ts)
  // and may read every argument
  if (info.func(name).custom) {
    const custom = { records: false, reads: null, cx: null };
    cache.set(name, custom);
    return custom;
  }
  cache.set(name, { records: true, reads: null, cx: null });
  let summary: CalleeSummary;
  try {
    // (what an earlier compile found for the same function and callees, ../reuse.ts: no context to take then)
    let cx: AdjointContext | null = null;
    const found = reused(info, name, 'summary', () => {
      cx = createContext(info, name);
      return { records: forwardRecords(cx), reads: backwardValueReads(cx) };
    });
    summary = { ...found, cx };
  } catch {
    summary = { records: true, reads: null, cx: null };
  }
  cache.set(name, summary);
  return summary;
}

/** does the forward sweep of `name` record anything? A recursion says yes. */
export function calleeForwardRecords(info: ProgramInfo, name: string): boolean {
  return calleeSummary(info, name).records;
}

/** the parameters whose values the backward sweep of `name` reads; null (every one) in a recursion */
function calleeBackwardReads(info: ProgramInfo, name: string): Set<string> | null {
  return calleeSummary(info, name).reads;
}

/** The built context of `name`: the one its callers' questions were answered from, taken once, or a new one. */
export function adjointContext(info: ProgramInfo, name: string): AdjointContext {
  const s = summaries.get(info)?.get(name);
  if (s?.cx) {
    const cx = s.cx;
    s.cx = null;
    return cx;
  }
  return createContext(info, name);
}

/**
 * An argument with no shadow of its own (a literal, a passive array) gets a zero one. Both sweeps must
 * pass the same object: the callee's forward sweep may record it (`const t = v; t[0] = …` records t̄ = v̄),
 * and its backward sweep adds into what it recorded. So it is made before the call and kept on the tape.
 */
function freshShadowArg(cx: AdjointContext, a: Expr, param: string, into: { argDecls: Stmt[]; argPushes: Stmt[]; argPops: Stmt[]; fargs: Expr[]; bargs: Expr[] }): void {
  const zero = zerosLike(cx, a);
  const ty = tyOf(zero);
  // (two names: a checkpointed call puts both sweeps in one block)
  const made: Extract<Expr, { k: 'var' }> = { k: 'var', name: cx.names.fresh(`${param}b`), ty };
  const back: Extract<Expr, { k: 'var' }> = { k: 'var', name: cx.names.fresh(`${param}b`), ty };
  into.argDecls.push({ k: 'decl', name: made.name, ty, init: zero, konst: true });
  into.argPushes.push({ k: 'expr', e: tapeOp(cx, 'pushR', [made]) });
  into.argPops.unshift({ k: 'decl', name: back.name, ty, init: tapeOp(cx, 'popR', [], ty), konst: true });
  into.fargs.push(made);
  into.bargs.push(back);
}
