// One shadow buffer for an array a loop allocates afresh on every pass.
//
// `const diff = xi.map((v, j) => v - mu[k][j])` inside a loop makes a new array each pass, and the
// reference model gives each one a new zero shadow, recorded on the tape and popped back when the
// backward sweep undoes the allocation. When the variable is the only name its arrays ever have (never
// passed, stored, aliased or returned, and every value it takes is a fresh allocation), the shadows'
// lifetimes in the backward sweep do not overlap: pass k's shadow is used from the reversal of the last
// read of pass k's array to the reversal of its allocation, and pass k + 1's allocation (which rebinds
// the variable, so comes after that last read) is undone before. One buffer then serves every pass: the
// forward sweep takes it again while it has the right length (nothing writes a shadow there), and the
// backward sweep zeroes it where it undoes an allocation, for the array the variable held before.
//
// The arrays themselves go the same way: where the backward sweep undoes the allocation, the array
// the variable held can no longer be reached (every reference the tape kept of it has been popped back
// into the variable), so it is given back to the tape, and the next allocation of that length, in this
// run or the next, takes it again.
//
// Inside a fused reduction's iteration (both sweeps back to back), a counted loop reversed there pass
// by pass allocates such an array at the top of every pass (GMM with map/reduce: `diff` per component,
// per point). Pass k's array is needed until the reversal of pass k, which ends before the next fused
// iteration starts. So each pass keeps one array of its own in a list hoisted before the fused loop
// (`tape.zerosAt(kept, k, n)`: zeroed again, or new when its length changed), and the next fused
// iteration's pass k takes it back: an indexed load instead of the tape's search by length.
import { escapingArrays } from '../../analysis/escaping.js';
import type { Expr, LValue, Stmt, Ty } from '../../ir/types.js';
import { exprEq, forEachChild, forEachExpr, forEachStmt, hasJump, INT, mapBodies, stmtExprs, varsRead, readsVar } from '../../ir/util.js';
import { type AdjointContext, adjointTy, aliasRep, endsWithReturnInside, hasDirective, tapeOp, tyOfLocal } from './context.js';
import { countedLoop } from './loops/counted.js';

const cache = new WeakMap<AdjointContext, Set<string>>();

/** Locals of `cx`'s function whose every value is a fresh array only they name. */
export function reusableShadows(cx: AdjointContext): Set<string> {
  let out = cache.get(cx);
  if (out) return out;
  out = new Set();
  cache.set(cx, out);
  if (cx.info.options.reuseShadows === false) return out;
  const params = new Set(cx.f.params.map((p) => p.name));
  const fresh = new Map<string, boolean>();
  const note = (name: string, value: Expr | null | undefined) => {
    if (!value) return;
    fresh.set(name, (fresh.get(name) ?? true) && zeroFilled(value));
  };
  forEachStmt(cx.f.body, (s) => {
    if (s.k === 'decl') note(s.name, s.init);
    else if (s.k === 'assign' && s.target.k === 'var') note(s.target.name, s.op ? null : s.value);
    // `v += …` on an array is not JavaScript; an element store is not a rebinding
    if (s.k === 'assign' && s.target.k === 'var' && s.op) fresh.set(s.target.name, false);
  });
  const escaping = escapingArrays(cx.f);
  for (const [name, ok] of fresh) {
    if (!ok || params.has(name) || escaping.has(name) || aliasRep(cx, name) !== name) continue;
    const t = tyOfLocal(cx, name);
    if (t?.k !== 'arr' || t.elem.k !== 'num' || (t.typed && (t.ctor ?? 'Float64Array') !== 'Float64Array')) continue;
    if (cx.tapes.has(name) || cx.paramHasB.has(name) || cx.alwaysRestore.has(name)) continue;
    out.add(name);
  }
  return out;
}

/** a new array of zeros (`new Array(n)` has holes, a typed array starts at zeros) */
function zeroFilled(e: Expr): boolean {
  if (e.k !== 'alloc') return false;
  if (e.fill === null) return e.ty.k === 'arr' && !!e.ty.typed;
  return e.fill.k === 'num' && e.fill.v === 0 && !Object.is(e.fill.v, -0);
}

/** tape operations whose array is as fresh as an allocation: no live name refers to it */
export const TAPE_ALLOCATIONS: ReadonlySet<string> = new Set(['tape.bufF', 'tape.zerosA', 'tape.zerosF64']);

/** the forward sweep's allocation of the array itself: the pass's own kept array, or one the backward sweep gave back */
export function allocationAgain(cx: AdjointContext, alloc: Extract<Expr, { k: 'alloc' }>, kept?: KeptByPass): Expr {
  const typed = alloc.ty.k === 'arr' && alloc.ty.typed;
  if (kept) return tapeOp(cx, (kept.overwritten ? 'kept' : 'zeros') + (typed ? 'F64At' : 'At'), [kept.list, kept.pass, alloc.len], alloc.ty);
  return tapeOp(cx, typed ? 'zerosF64' : 'zerosA', [alloc.len], alloc.ty);
}

/** the list of one allocation's arrays kept by pass (declared before the fused loop), and the pass's index in it */
export interface KeptByPass {
  list: Expr;
  pass: Expr;
  /** every element is written before it is read: the array needs no zeros (`tape.keptAt`) */
  overwritten: boolean;
}

/**
 * `s`, the allocation of a reusable-shadow array `name`, kept by pass: `s` sits directly in the body of
 * the loop `cx.perPass` names (once per pass), which sits directly in a fused iteration. Null otherwise.
 */
export function keptByPass(cx: AdjointContext, s: Stmt, name: string): KeptByPass | null {
  const pp = cx.perPass;
  if (!pp || !cx.fused || !pp.loop.body.includes(s) || cx.checkpointing) return null;
  const t = tyOfLocal(cx, name);
  if (t?.k !== 'arr') return null;
  const listTy: Ty = { k: 'arr', elem: t, typed: false, ro: false };
  const list: Expr = { k: 'var', name: cx.names.fresh(`${name}Kept`), ty: listTy };
  cx.fused.pre.push({ k: 'decl', name: (list as { name: string }).name, ty: listTy, init: { k: 'arrlit', elems: [], ty: listTy }, konst: true, comments: [`// $ad ${name}: one array per pass of the loop, kept across the fused iterations`] });
  const value = s.k === 'decl' ? s.init : s.k === 'assign' ? s.value : null;
  const at = pp.loop.body.indexOf(s);
  const overwritten = value?.k === 'alloc' && overwrittenBeforeRead(pp.loop.body[at + 1], name, value.len);
  return { list, pass: pp.pass, overwritten };
}

/**
 * Every element of the array `name`, just allocated with length `len`, is written before anything reads
 * it: `next` is `for (j = 0; j < B; j++)`, B being `len` itself or `name.length`, whose body mentions the
 * array first in `name[j] = e` at its top level (e not reading it), and changes neither j, nor what B
 * reads, nor any array's length (no calls, no intrinsics but Math's, no jumps). The zeros of a new array
 * are then never seen (the map lowering: `diff = zeros(n); for (j …) diff[j] = f(xs[j])`).
 */
function overwrittenBeforeRead(next: Stmt | undefined, name: string, len: Expr): boolean {
  if (!next || next.k !== 'for' || next.init.length !== 1 || next.update.length !== 1 || !next.cond || hasJump(next.body)) return false;
  const ini = next.init[0];
  const j = ini.k === 'decl' ? ini.name : ini.k === 'assign' && ini.target.k === 'var' && !ini.op ? ini.target.name : null;
  const start = ini.k === 'decl' ? ini.init : ini.k === 'assign' ? ini.value : null;
  if (!j || !start || start.k !== 'num' || start.v !== 0) return false;
  const up = next.update[0];
  const one = (e: Expr) => e.k === 'num' && e.v === 1;
  const isJ = (e: Expr) => e.k === 'var' && e.name === j;
  const step = up.k === 'assign' && up.target.k === 'var' && up.target.name === j && up.value.k === 'bin' && up.value.op === '+' && isJ(up.value.a) && one(up.value.b);
  const c = next.cond;
  if (!step || c.k !== 'bin' || c.op !== '<' || !isJ(c.a)) return false;
  const ownLength = c.b.k === 'len' && c.b.obj.k === 'var' && c.b.obj.name === name;
  if (!ownLength && !exprEq(c.b, len)) return false;
  const bound = varsRead(c.b);
  let ok = true;
  forEachStmt(next.body, (x) => {
    const assigned = x.k === 'decl' ? x.name : x.k === 'assign' && x.target.k === 'var' ? x.target.name : null;
    if (assigned !== null && (assigned === j || assigned === name || bound.has(assigned))) ok = false;
    if (!(x.k === 'decl' || x.k === 'assign' || x.k === 'for' || x.k === 'if' || x.k === 'block')) ok = false;
    for (const e of stmtExprs(x))
      forEachExpr(e, (y) => {
        if (y.k === 'call' || (y.k === 'intr' && !y.fn.startsWith('Math.'))) ok = false;
      });
  });
  if (!ok) return false;
  const mentions = (x: Stmt) => {
    let m = false;
    forEachStmt([x], (y) => {
      for (const e of stmtExprs(y)) if (readsVar(e, name)) m = true;
    });
    return m;
  };
  const first = next.body.find(mentions);
  if (!first || first.k !== 'assign' || first.op || first.target.k !== 'idx') return false;
  const t = first.target;
  return t.obj.k === 'var' && t.obj.name === name && isJ(t.index) && !readsVar(first.value, name);
}

/**
 * `s`, the allocation of a reusable-shadow array `name` directly in the body of the fused iteration
 * being built (once per iteration, private to it: both its sweeps are over when the next iteration
 * starts): the array, and its shadow when it has one, each kept in a one-slot list before the fused
 * loop. The shadow is zeroed again (the iteration's backward half may leave adjoints in it), the array
 * too unless the next loop writes every element before any read.
 */
export function keptPerIteration(cx: AdjointContext, s: Stmt, name: string, shadow: boolean): { array: KeptByPass; shadow: KeptByPass | null } | null {
  if (cx.info.options.reuseShadows === false || !cx.inFused || !cx.fused || cx.loopDepth !== 1 || !cx.fused.body.includes(s) || cx.checkpointing || !reusableShadows(cx).has(name)) return null;
  const value = s.k === 'decl' ? s.init : s.k === 'assign' ? s.value : null;
  const t = tyOfLocal(cx, name);
  if (value?.k !== 'alloc' || t?.k !== 'arr') return null;
  const once: Expr = { k: 'num', v: 0 };
  const listOf = (base: string, ty: Ty, what: string): Expr => {
    const listTy: Ty = { k: 'arr', elem: ty, typed: false, ro: false };
    const list: Extract<Expr, { k: 'var' }> = { k: 'var', name: cx.names.fresh(`${base}Kept`), ty: listTy };
    cx.fused!.pre.push({ k: 'decl', name: list.name, ty: listTy, init: { k: 'arrlit', elems: [], ty: listTy }, konst: true, comments: [`// $ad ${what}: one array, kept across the fused iterations`] });
    return list;
  };
  const overwritten = overwrittenBeforeRead(cx.fused.body[cx.fused.body.indexOf(s) + 1], name, value.len);
  const array = { list: listOf(name, t, name), pass: once, overwritten };
  const bname = shadow ? cx.b.of(name) : null;
  return { array, shadow: bname ? { list: listOf(bname, t, `${name}'s adjoint`), pass: once, overwritten: false } : null };
}

/**
 * The pass index of counted loop `s` (its index minus a literal start, step 1) when arrays its passes
 * allocate may be kept by pass: `s` sits directly in the fused iteration being built and is reversed
 * plainly there (not checkpointed: a re-run pass would take its array again).
 */
export function perPassLoop(cx: AdjointContext, s: Stmt): AdjointContext['perPass'] {
  if (s.k !== 'for' || cx.info.options.reuseShadows === false || !cx.inFused || !cx.fused || !cx.fused.body.includes(s) || cx.checkpointing || hasDirective(s, 'ii-loop')) return null;
  const counted = countedLoop(cx, s);
  const ini = s.init[0];
  const start = ini?.k === 'decl' ? ini.init : ini?.k === 'assign' ? ini.value : null;
  if (!counted || counted.step !== 1 || !start || start.k !== 'num' || !Number.isInteger(start.v)) return null;
  const pass: Expr = start.v === 0 ? counted.index : { k: 'bin', op: '-', a: counted.index, b: start, ty: INT };
  return { loop: s, pass };
}

/** the forward sweep's shadow for `target = new array of length len`: the buffer again when it fits */
export function shadowAgain(bt: LValue, len: Expr): Expr {
  const typed = bt.ty.k === 'arr' && bt.ty.typed;
  return { k: 'intr', fn: typed ? 'float64Again' : 'zerosAgain', args: [bt, len], ty: bt.ty };
}

/** the backward sweep, undoing that allocation: the array goes back to the tape */
export function giveBack(cx: AdjointContext, target: LValue): Stmt {
  return { k: 'expr', e: tapeOp(cx, 'giveBack', [target]) };
}

/** …and once `target` holds its earlier array again, the shadow buffer is zeroed for it */
export function shadowZeroedFor(bt: LValue, target: LValue): Stmt {
  return { k: 'assign', target: bt, value: { k: 'intr', fn: 'zeroedFor', args: [bt, target], ty: bt.ty } };
}

/**
 * `X = zeroedFor(X, P)` right after a loop that sets every element of X below a bound L to 0 (the
 * backward sweep of the pass that wrote each element of the array once, `diff[j] = …` resetting
 * `diffb[j]`): those elements are zero already, so the buffer is zeroed from L on only
 * (`zeroedFor(X, P, L)`). The loop counts j over [0, L) one by one, either way, with no jump, and
 * its body stores `X[j] = 0` at its top level and mentions X no more after that; what lies between
 * the loop and the statement are pops into other variables, and nothing assigns L's variables.
 */
export function zeroedBelowLoops(list: Stmt[]): Stmt[] {
  const out = list.map((s) => mapBodies(s, zeroedBelowLoops));
  for (let k = 0; k < out.length; k++) {
    const s = out[k];
    if (s.k !== 'assign' || s.target.k !== 'var' || s.op || s.value.k !== 'intr' || s.value.fn !== 'zeroedFor' || s.value.args.length !== 2) continue;
    const x = s.target.name;
    let at = k - 1;
    const between: Stmt[] = [];
    while (at >= 0 && isPopInto(out[at], x)) between.push(out[at--]);
    const loop = out[at];
    const bound = loop && loop.k === 'for' ? zeroingLoopBound(loop, x) : null;
    if (!bound) continue;
    const boundVars = varsRead(bound);
    if (between.some((b) => b.k === 'assign' && b.target.k === 'var' && boundVars.has(b.target.name))) continue;
    out[k] = { ...s, value: { ...s.value, args: [...s.value.args, bound] } };
  }
  return out;
}

/** `v = tape.popR()` (or popF) into a variable other than `x` */
function isPopInto(s: Stmt, x: string): boolean {
  return s.k === 'assign' && s.target.k === 'var' && s.target.name !== x && !s.op && s.value.k === 'intr' && (s.value.fn === 'tape.popR' || s.value.fn === 'tape.popF');
}

/** L, when `loop` runs j over [0, L) one by one and leaves `x[j]` at 0 in each pass */
function zeroingLoopBound(loop: Extract<Stmt, { k: 'for' }>, x: string): Expr | null {
  if (loop.init.length !== 1 || loop.update.length !== 1 || !loop.cond || hasJump(loop.body)) return null;
  const init = loop.init[0];
  const j = init.k === 'assign' && init.target.k === 'var' && !init.op ? init.target.name : init.k === 'decl' ? init.name : null;
  const start = init.k === 'assign' ? init.value : init.k === 'decl' ? init.init : null;
  if (!j || !start) return null;
  const isJ = (e: Expr) => e.k === 'var' && e.name === j;
  const num = (e: Expr, v: number) => e.k === 'num' && e.v === v;
  const u = loop.update[0];
  const step = u.k === 'assign' && u.target.k === 'var' && u.target.name === j && u.value.k === 'bin' && isJ(u.value.a) && num(u.value.b, 1) ? u.value.op : null;
  const c = loop.cond;
  let bound: Expr | null = null;
  // down: j = L - 1; j >= 0; j--      up: j = 0; j < L; j++
  if (step === '-' && c.k === 'bin' && c.op === '>=' && isJ(c.a) && num(c.b, 0) && start.k === 'bin' && start.op === '-' && num(start.b, 1)) bound = start.a;
  if (step === '+' && c.k === 'bin' && c.op === '<' && isJ(c.a) && num(start, 0)) bound = c.b;
  if (!bound) return null;
  const boundVars = varsRead(bound);
  if (boundVars.has(j) || boundVars.has(x)) return null;
  let ok = true;
  forEachExpr(bound, (e) => {
    if (e.k === 'call' || e.k === 'intr') ok = false;
  });
  // the body: no rebinding of j, x or L's variables; `x[j] = 0` at its top level, x untouched after it
  forEachStmt(loop.body, (t) => {
    const n = t.k === 'decl' ? t.name : t.k === 'assign' && t.target.k === 'var' ? t.target.name : null;
    if (n && (n === j || n === x || boundVars.has(n))) ok = false;
  });
  const zeroAt = loop.body.findIndex((t) => t.k === 'assign' && !t.op && t.target.k === 'idx' && t.target.obj.k === 'var' && t.target.obj.name === x && isJ(t.target.index) && num(t.value, 0));
  if (!ok || zeroAt < 0) return null;
  // (before it, only x[j] itself: another pass's element written here would not be zero at the end)
  let onlyOwn = true;
  const own = (e: Expr): void => {
    if (e.k === 'idx' && e.obj.k === 'var' && e.obj.name === x && isJ(e.index)) return;
    if (e.k === 'var' && e.name === x) onlyOwn = false;
    forEachChild(e, own);
  };
  forEachStmt(loop.body.slice(0, zeroAt), (t) => {
    for (const e of stmtExprs(t)) own(e);
    if (t.k === 'assign') own(t.target);
  });
  if (!onlyOwn) return null;
  for (const t of loop.body.slice(zeroAt + 1)) {
    let mentions = false;
    forEachStmt([t], (y) => {
      for (const e of stmtExprs(y)) if (readsVar(e, x)) mentions = true;
      if (y.k === 'assign' && rootIs(y.target, x)) mentions = true;
    });
    if (mentions) return null;
  }
  return bound;
}

function rootIs(e: Expr, x: string): boolean {
  return e.k === 'var' ? e.name === x : e.k === 'idx' || e.k === 'field' || e.k === 'sub' ? rootIs(e.obj, x) : false;
}

/**
 * Arrays a function allocates once per call, passes to callees and nobody keeps (a `const terms =
 * new Array(n).fill(0)` at the top level of its body, otherwise only indexed or measured, and passed
 * to callees that only index and measure that parameter): after the function's backward sweep no name reaches them or their
 * shadows, so the forward sweep takes both from the tape (`tape.zerosA`) and the end of the backward
 * sweep gives them back (`callLocalGiveBacks`), for the next call. A host mapping a method over its
 * components per data point allocates them once per point otherwise.
 */
export function callLocalArrays(cx: AdjointContext): Set<string> {
  const known = callLocalCache.get(cx);
  if (known) return known;
  const out = new Set<string>();
  callLocalCache.set(cx, out);
  if (cx.info.options.reuseShadows === false || cx.checkpointing || endsWithReturnInside(cx)) return out;
  const params = new Set(cx.f.params.map((p) => p.name));
  const defs = new Map<string, number>();
  forEachStmt(cx.f.body, (s) => {
    const n = s.k === 'decl' ? s.name : s.k === 'assign' && s.target.k === 'var' ? s.target.name : null;
    if (n) defs.set(n, (defs.get(n) ?? 0) + 1);
  });
  const escaping = escapingArrays(cx.f, (fn, i) => keepsNothing(cx, fn, i));
  // (only arrays handed to such callees: the others keep their plain allocations, which later passes
  // know — iteration-local arrays become scalars, loops over them fuse)
  const passed = escapingArrays(cx.f);
  for (const s of cx.f.body) {
    if (s.k !== 'decl' || !s.init || !zeroFilled(s.init) || defs.get(s.name) !== 1) continue;
    const name = s.name;
    if (params.has(name) || escaping.has(name) || !passed.has(name) || aliasRep(cx, name) !== name) continue;
    const t = tyOfLocal(cx, name);
    if (t?.k !== 'arr' || t.elem.k !== 'num' || (t.typed && (t.ctor ?? 'Float64Array') !== 'Float64Array')) continue;
    if (cx.tapes.has(name) || cx.paramHasB.has(name) || cx.alwaysRestore.has(name)) continue;
    out.add(name);
  }
  return out;
}
const callLocalCache = new WeakMap<AdjointContext, Set<string>>();

/** does `fn` only index and measure its parameter `i` (a function tsad differentiates or copies, no rule, no black box)? */
function keepsNothing(cx: AdjointContext, fn: string, i: number): boolean {
  const g = cx.info.mod.funcs.get(fn);
  if (!g || g.custom || g.external || i >= g.params.length) return false;
  return !escapingArrays(g).has(g.params[i].name);
}

/** the end of the backward sweep: the call's own arrays (and shadows) it received from the forward sweep go back to the tape */
export function callLocalGiveBacks(cx: AdjointContext, handedOver: ReadonlySet<string>): Stmt[] {
  const out: Stmt[] = [];
  for (const n of [...callLocalArrays(cx)].sort()) {
    const t = tyOfLocal(cx, n)!;
    if (handedOver.has(n)) out.push(giveBack(cx, { k: 'var', name: n, ty: t }));
    const b = cx.b.known(n) ? cx.b.of(n) : null;
    if (b && handedOver.has(b)) out.push(giveBack(cx, { k: 'var', name: b, ty: adjointTy(cx, t) }));
  }
  return out;
}
