// Recording for the backward sweep: save-on-kill (push a value before it is overwritten, pop it back),
// the to-be-recorded analysis that drops pushes nobody reads, recomputation of cheap definitions
// instead of recording them (and expensive values stored instead of recomputed), and the adjoints of
// tape operations already in the source.
import { stmtCalls } from '../../analysis/activity.js';
import { escapingArrays } from '../../analysis/escaping.js';
import { computeSlotWrites } from '../../analysis/slot-writes.js';
import { type Facts, type FlowResult, solveForward } from '../../analysis/dataflow.js';
import { wholeArrayWrites } from '../../analysis/regions.js';
import type { Expr, LValue, Stmt, Ty } from '../../ir/types.js';
import { BOOL, directiveArgs, exprEq, forEachExpr, forEachStmt, INT, isRef, mapExpr, NUM, rootVar, tyOf, VOID, WRITING_INTRINSICS } from '../../ir/util.js';
import { bref, declAsAssign, increments, invariantInLoop, linctx, linearizeAt, refAdjoint } from './assign.js';
import { type AdjointContext, adjointTy, primalNames, aliasRep, bwhole, exprVaried, hasB, type Pair, positions, scratchOf, tapeOp, tyOfLocal, variedIn, zerosLike } from './context.js';
import { firstPrivateDef } from './loops/fused-reduction.js';
import { lengthRestore, lengthsChangedIn, lengthsChangedInFunction } from './grown-lengths.js';
import { freshValueAdjoint, isRowStore, shadowIsRestored } from './references.js';
import { giveBack, keptByPass, type KeptByPass, reusableShadows, shadowZeroedFor } from './reused-shadows.js';
import { assignsVar } from './util.js';

/**
 * To-be-recorded analysis (Tapenade §5.2), forward: a variable is in the set when the backward sweep
 * reads its current value somewhere since its last definition. Only then must a kill push it.
 */
export function toBeRecorded(cx: AdjointContext): FlowResult {
  const escaping = escapingArrays(cx.f);
  const transfer = (st: Stmt, f: Facts): Facts => {
    const r = cx.readsAt.get(st);
    let out = f;
    if (r && r.size) {
      out = new Set(f);
      for (const x of r) out.add(x);
    }
    // a declaration without a value changes nothing in the generated code (declarations are hoisted)
    // a statement diff-liveness removed from the forward sweep overwrites nothing there
    const def = cx.dead.has(st) ? null : st.k === 'decl' ? (st.init ? st.name : null) : st.k === 'assign' && st.target.k === 'var' && !cx.inverted.has(st) ? st.target.name : null;
    // (a name rebound to an array or object does not end the object it held: another name, or the
    // same name again, may write into it while the backward sweep still reads its old values)
    const rebindsRef = st.k === 'decl' ? isRef(st.ty) : st.k === 'assign' && isRef(st.target.ty);
    // (…except when the name was the array's only one and now holds a new array: nothing can reach the
    // old one any more, and the new one's values are read by no backward statement yet)
    if (def && out.has(def) && (!rebindsRef || (!escaping.has(def) && freshValue(st)))) {
      if (out === f) out = new Set(f);
      out.delete(def);
    }
    return out;
  };
  const atHead = (st: Stmt, f: Facts): Facts => {
    const r = cx.readsAt.get(st);
    if (!r || !r.size) return f;
    const out = new Set(f);
    for (const x of r) out.add(x);
    return out;
  };
  // a loop that overwrites a whole array is its definition: values from before it are not needed
  const whole = wholeArrayWrites(cx.f);
  // (unless the loop's own backward sweep reads the array: those are values the loop wrote, current
  // after it — a later overwrite must record them)
  const readInside = (st: Stmt, a: string): boolean => {
    let hit = false;
    forEachStmt([st], (x) => {
      const r = x === st ? null : cx.readsAt.get(x);
      if (r && [...r].some((n) => aliasRep(cx, n) === aliasRep(cx, a))) hit = true;
    });
    return hit;
  };
  const afterLoop = (st: Stmt, f: Facts): Facts => {
    const arrays = whole.get(st)?.filter((a) => f.has(a) && !readInside(st, a));
    if (!arrays || !arrays.length) return f;
    const out = new Set(f);
    for (const a of arrays) out.delete(a);
    return out;
  };
  return solveForward(cx.f.body, new Set(), transfer, atHead, afterLoop);
}

/** does `st` bind its variable to a newly made array (an allocation, a literal, a copy)? */
function freshValue(st: Stmt): boolean {
  const v = st.k === 'decl' ? st.init : st.k === 'assign' && !st.op ? st.value : null;
  return !!v && (v.k === 'alloc' || v.k === 'arrlit' || (v.k === 'intr' && (v.fn === 'copy' || v.fn === 'snapshot' || v.fn === 'zerosLike')));
}

/** Must the value `root` holds before `s` be recorded? */
export function mustRecord(cx: AdjointContext, s: Stmt, root: string, writesObject = false): boolean {
  // a write into an array or object (not a rebinding of `root`) changes it under every name it has:
  // what the backward sweep reads through any alias of it counts
  // (…but a scratch field's array has no name but its one alias: see analysis/scratch-fields.ts)
  const names = writesObject && !scratchAlias(cx, root) ? aliasClass(cx, root) : [root];
  if (names.some((n) => cx.alwaysRestore.has(n))) return true;
  // a scratch field's contents started afresh: what it overwrites no one reads
  if (scratchOf(cx).kills.has(s)) return false;
  // the naive model records every overwritten value (Tapenade's store-all column)
  if (!cx.info.options.tbr) return true;
  if (!cx.tbr) return false;
  const tbrIn = cx.tbr.inOf.get(s);
  const prev = cx.prevReadsAt.get(s);
  return names.some((n) => tbrIn?.has(n) || prev?.has(n));
}

/** a local holding a scratch field of its instance (`const diff = self.centered`)? */
function scratchAlias(cx: AdjointContext, name: string): boolean {
  return scratchOf(cx).aliases.get(cx.name)?.has(name) ?? false;
}

/** `root` and every variable that may hold the same array or object */
function aliasClass(cx: AdjointContext, root: string): string[] {
  const rep = aliasRep(cx, root);
  return [...new Set([root, rep, ...(aliasMembers(cx).get(rep) ?? [])])];
}

/** the variables of each alias class, by representative (once per function: stores ask often) */
const membersCache = new WeakMap<AdjointContext, Map<string, string[]>>();
function aliasMembers(cx: AdjointContext): Map<string, string[]> {
  let m = membersCache.get(cx);
  if (m) return m;
  m = new Map();
  for (const n of new Set([...primalNames(cx), ...cx.f.params.map((p) => p.name)])) {
    const rep = aliasRep(cx, n);
    m.set(rep, [...(m.get(rep) ?? []), n]);
  }
  membersCache.set(cx, m);
  return m;
}

/** primal variables read by backward-sweep statements */
export function primalReads(cx: AdjointContext, bwd: Stmt[]): Set<string> {
  const primal = primalNames(cx);
  const reads = new Set<string>();
  const visit = (e: Expr) =>
    forEachExpr(e, (x) => {
      if (x.k === 'var' && primal.has(x.name)) reads.add(x.name);
    });
  forEachStmt(bwd, (s) => {
    switch (s.k) {
      case 'assign':
        if (s.target.k !== 'var') visit(s.target);
        else forEachExpr(s.target, () => {});
        visit(s.value);
        break;
      case 'decl':
        if (s.init) visit(s.init);
        break;
      case 'expr':
        visit(s.e);
        break;
      case 'if':
        visit(s.c);
        break;
      case 'for':
        if (s.cond) visit(s.cond);
        break;
      case 'while':
      case 'do':
        visit(s.cond);
        break;
      case 'return':
        if (s.e) visit(s.e);
        break;
      default:
        break;
    }
  });
  // loop indices assigned by reversed loops are written, not read, unless read elsewhere
  return reads;
}

/**
 * Push of what `target` holds before it is overwritten, and the mirrored pop: its value, and the length
 * of an array the store may grow (grown-lengths.ts; pushed first, so set back after the value).
 */
export function saveOnKill(cx: AdjointContext, s: Stmt, target: LValue, isFirstDef: boolean): Pair & { reusedShadow?: true; kept?: KeptByPass } {
  const value = saveValueOnKill(cx, s, target, isFirstDef);
  const length = lengthRestore(cx, s, target);
  if (!length.fwd.length) return value;
  return { ...value, fwd: [...length.fwd, ...value.fwd], bwd: [...value.bwd, ...length.bwd] };
}

/** Push of the value `target` holds before it is overwritten, and the mirrored pop. */
function saveValueOnKill(cx: AdjointContext, s: Stmt, target: LValue, isFirstDef: boolean): Pair & { reusedShadow?: true; kept?: KeptByPass } {
  const root = rootVar(target);
  if (!root) return { fwd: [], bwd: [] };
  if (cx.recomputed.has(s)) return { fwd: [], bwd: [] };
  if (isFirstDef && cx.loopDepth === 0) return { fwd: [], bwd: [] };
  if (target.k === 'var' && firstPrivateDef(cx, s, target.name)) return { fwd: [], bwd: [] };
  // a number field no backward sweep reads: its old value is needed by nobody (field-reads.ts; the
  // head keeps its own restores, which its f_b's contract may rely on)
  if (target.k === 'field' && target.ty.k === 'num' && cx.name !== cx.info.head && cx.info.unreadNumberFields?.has(target.name)) return { fwd: [], bwd: [] };
  const t = target.ty;
  // a reassigned array's adjoint alias is restored whenever it has one: the backward sweep uses it
  // (also a row or field holding one: see references.ts)
  const withAdjoint = shadowIsRestored(cx, target);
  const rowStore = isRowStore(target);
  // an element nobody's backward sweep reads the values of (a callee may read only the length)
  // (a parameter written for a caller is restored for the caller's backward sweep, which may read it)
  const record = rowStore || (mustRecord(cx, s, root, target.k !== 'var') && !(target.k !== 'var' && !isRef(t) && !aliasClass(cx, root).some((n) => cx.alwaysRestore.has(n)) && cx.valueReads !== null && !cx.valueReads.has(aliasRep(cx, root))));
  if (record) cx.pushSites.push(`${cx.pushSites.length}:${root}`);
  if (!record && !withAdjoint) return { fwd: [], bwd: [] };
  const inverse = record ? inverseOf(cx, s, target) : null;
  if (inverse) {
    cx.inverted.add(s);
    return { fwd: [], bwd: [inverse] };
  }
  // the old value came from a cheap assignment whose inputs never change: evaluate it again
  const again = record && !withAdjoint && target.k === 'var' && cx.info.options.recompute !== false ? cheapReachingDef(cx, s, target.name) : null;
  if (again) return { fwd: [], bwd: [{ k: 'assign', target, value: again }] };
  const fwd: Stmt[] = [];
  const bwd: Stmt[] = [];
  const popInto = (lv: LValue, ty: Ty) => {
    if (ty.k === 'num' || ty.k === 'int') {
      fwd.push({ k: 'expr', e: tapeOp(cx, 'pushF', [lv]) });
      bwd.push({ k: 'assign', target: lv, value: tapeOp(cx, 'popF', [], NUM) });
    } else if (ty.k === 'bool') {
      fwd.push({ k: 'expr', e: tapeOp(cx, 'pushI', [{ k: 'cond', c: lv, a: { k: 'num', v: 1 }, b: { k: 'num', v: 0 }, ty: INT }]) });
      bwd.push({ k: 'assign', target: lv, value: { k: 'bin', op: '===', a: tapeOp(cx, 'popI', [], INT), b: { k: 'num', v: 1 }, ty: BOOL } });
    } else {
      fwd.push({ k: 'expr', e: tapeOp(cx, 'pushR', [lv]) });
      bwd.push({ k: 'assign', target: lv, value: tapeOp(cx, 'popR', [], ty) });
    }
  };
  // an array only this variable names, every value of it a fresh allocation: one shadow buffer (reused-shadows.ts)
  if (record && withAdjoint && target.k === 'var' && reusableShadows(cx).has(root)) {
    popInto(target, t);
    const bt = bwhole(cx, target) as LValue;
    // (an array kept by pass stays in its list: the next fused iteration's same pass takes it)
    const kept = keptByPass(cx, s, root);
    if (kept) return { fwd, bwd: [...bwd, shadowZeroedFor(bt, target)], reusedShadow: true, kept };
    return { fwd, bwd: [giveBack(cx, target), ...bwd, shadowZeroedFor(bt, target)], reusedShadow: true };
  }
  if (record) popInto(target, t);
  if (withAdjoint) {
    const bv = bwhole(cx, target) as LValue;
    popInto(bv, bv.ty);
  }
  // the backward sweep pops in reverse order of the pushes
  return { fwd, bwd: bwd.reverse() };
}

/**
 * Recomputation instead of recording (Tapenade §4.9, "cheap assignment whose inputs are still
 * available at pop time"): the value `name` holds just before `s`, when it comes from a cheap
 * assignment `name = e` that reaches `s` on every path (found in the same statement list or an
 * enclosing branch, never across a loop) and whose inputs never change in the function.
 */
export function cheapReachingDef(cx: AdjointContext, s: Stmt, name: string): Expr | null {
  if (!(tyOfLocal(cx, name)?.k === 'num' || tyOfLocal(cx, name)?.k === 'int')) return null;
  const pos = positions(cx).get(s);
  return pos ? cheapDefBefore(cx, pos, name) : null;
}

/** the cheap, stable assignment that gives `name` its value at `index` of `list` on every path */
export function cheapDefBefore(cx: AdjointContext, start: { list: Stmt[]; index: number; parent: Stmt | null }, name: string, paramsOnly = false): Expr | null {
  const params = new Set(cx.f.params.map((p) => p.name));
  let pos: { list: Stmt[]; index: number; parent: Stmt | null } | undefined = start;
  for (;;) {
    if (!pos) return null;
    for (let k = pos.index - 1; k >= 0; k--) {
      const t = pos.list[k];
      // (a statement diff-liveness dropped from the forward sweep assigns nothing there: the backward
      // sweep sees the values the forward sweep left)
      if (cx.dead.has(t)) continue;
      const def = t.k === 'decl' ? (t.init ? t.init : null) : t.k === 'assign' && t.target.k === 'var' && t.target.name === name ? t.value : null;
      if ((t.k === 'decl' && t.name === name) || (t.k === 'assign' && t.target.k === 'var' && t.target.name === name)) {
        if (!def || !cheap(def) || storeForced(cx, t)) return null;
        let ok = true;
        forEachExpr(def, (x) => {
          if (x.k === 'var' && (x.name === name || !stable(cx).has(x.name) || (paramsOnly && !params.has(x.name)))) ok = false;
        });
        return ok ? def : null;
      }
      if (assignsVar(t, name)) return null;
    }
    if (!pos.parent || pos.parent.k === 'for' || pos.parent.k === 'while' || pos.parent.k === 'do' || pos.parent.k === 'switch') return null;
    pos = positions(cx).get(pos.parent);
  }
}


/**
 * Recomputation of final values from final values: a number the function assigns last at its top level
 * from arithmetic (`temp0 = 1 / temp`, `temp = Math.sqrt(dx1 * dx1 + dy1 * dy1)`, the guarded partials
 * of linearized code) on unchanging parameters and on other numbers handed over to the backward sweep
 * (`handed`: popped or evaluated again there) that nothing assigns after it. Its final value is
 * evaluated again at the start of the backward sweep, after the pops, instead of a push and a pop: the
 * inputs hold their final values there, which are the ones the assignment read. The same operations
 * on the same values: the same bits. Returns the expression and the index of its statement in the
 * body (the chain is evaluated in that order).
 */
export function arithDefAtEnd(cx: AdjointContext, name: string, handed: (n: string) => boolean): { e: Expr; at: number } | null {
  if (cx.info.options.recompute === false) return null;
  if (!(tyOfLocal(cx, name)?.k === 'num' || tyOfLocal(cx, name)?.k === 'int')) return null;
  const last = lastTopLevelDef(cx, name);
  if (!last || !arithmetic(last.def) || operations(last.def) > MAX_REEVALUATED_OPERATIONS) return null;
  const params = new Set(cx.f.params.map((p) => p.name));
  const later = cx.f.body.slice(last.at + 1);
  let ok = true;
  forEachExpr(last.def, (x) => {
    if (x.k !== 'var') return;
    if (x.name === name) ok = false;
    // (an unchanging parameter: a number, or an array nothing writes)
    else if (params.has(x.name)) ok &&= stable(cx).has(x.name);
    // (a number handed over whose final value is the one read here)
    else ok &&= (x.ty.k === 'num' || x.ty.k === 'int') && handed(x.name) && !later.some((u) => assignsVar(u, x.name));
  });
  return ok ? { e: last.def, at: last.at } : null;
}

/**
 * The statement of the function's top level that gives `name` its final value (a plain assignment or
 * a declaration, not a compound one, whose store is not forced onto the tape), with its index; null
 * where something else assigns it after that, inside a branch or loop for instance.
 */
function lastTopLevelDef(cx: AdjointContext, name: string): { def: Expr; at: number } | null {
  const body = cx.f.body;
  for (let k = body.length - 1; k >= 0; k--) {
    const t = body[k];
    if (cx.dead.has(t)) continue;
    const defines = (t.k === 'decl' && t.name === name) || (t.k === 'assign' && t.target.k === 'var' && t.target.name === name && !t.op);
    if (!defines) {
      if (assignsVar(t, name)) return null;
      continue;
    }
    const def = t.k === 'decl' ? t.init : t.k === 'assign' ? t.value : null;
    return def && !storeForced(cx, t) ? { def, at: k } : null;
  }
  return null;
}

/** a longer expression is recorded: a push and a pop cost about as much as a few operations on registers */
const MAX_REEVALUATED_OPERATIONS = 10;

function operations(e: Expr): number {
  let n = 0;
  forEachExpr(e, (x) => {
    if (x.k === 'bin' || x.k === 'un' || x.k === 'cond' || x.k === 'intr' || x.k === 'idx') n++;
  });
  return n;
}

/** exact operations, each about as dear as a push and a pop: evaluated again rather than recorded */
const EXACT = new Set(['Math.sqrt', 'Math.abs', 'Math.min', 'Math.max', 'Math.sign', 'Math.floor', 'Math.ceil', 'Math.trunc', 'Math.round', 'Math.fround', 'Number.isFinite', 'isFinite', 'isNaN', 'Number.isNaN']);

/** arithmetic without calls, allocation or transcendental functions, on loads of unchanging arrays */
function arithmetic(e: Expr): boolean {
  switch (e.k) {
    case 'var':
    case 'num':
    case 'bool':
    case 'global':
      return true;
    case 'idx':
      return e.obj.k === 'var' && arithmetic(e.index);
    case 'len':
      return e.obj.k === 'var';
    case 'bin':
      return e.op !== '**' && arithmetic(e.a) && arithmetic(e.b);
    case 'un':
      return arithmetic(e.a);
    case 'cond':
      return arithmetic(e.c) && arithmetic(e.a) && arithmetic(e.b);
    case 'intr':
      return EXACT.has(e.fn) && e.args.every(arithmetic);
    default:
      return false;
  }
}

/**
 * A reference or a length the function computes at its top level from parameters it never assigns,
 * through field reads of references only (`diff = self.centered`, `d = self.mean.length`, `b = a`):
 * its final value, evaluated again at the start of the backward sweep, instead of a push and a pop. Numbers stored into elements or fields
 * change no reference and no length, so only stores of references, resizing intrinsics and calls
 * that may do either count against it (record.ts writtenIn with slotsOnly). The caller restores what
 * these parameters reach before the backward sweep as for any other read there (calls.ts
 * backwardValueReads counts the variables read here).
 */
export function shapeDefAtEnd(cx: AdjointContext, name: string): Expr | null {
  if (cx.info.options.recompute === false) return null;
  const last = lastTopLevelDef(cx, name);
  if (!last || !shapeOnly(last.def)) return null;
  const params = new Set(cx.f.params.map((p) => p.name));
  const slotsWritten = bodyFacts(cx).writtenFrom(0, true);
  // (numbers stored past an array's end, into a parameter some caller passes a literal, change its length)
  if (last.def.k === 'len' && rootVar(last.def) && lengthsChangedInFunction(cx).has(aliasRep(cx, rootVar(last.def)!))) return null;
  let ok = true;
  forEachExpr(last.def, (x) => {
    if (x.k !== 'var') return;
    // (a parameter the body never assigns, whose references and lengths nothing here changes)
    if (!params.has(x.name) || bodyFacts(cx).defs.has(x.name) || slotsWritten.has(aliasRep(cx, x.name))) ok = false;
  });
  return ok ? last.def : null;
}

/** a chain of reference reads from a variable, or the length of one (no number is read) */
function shapeOnly(e: Expr): boolean {
  const chain = (x: Expr): boolean => x.k === 'var' || (x.k === 'field' && isRef(x.ty) && x.ty.k !== 'opt' && chain(x.obj));
  return e.k === 'len' ? chain(e.obj) : isRef(tyOf(e)) && chain(e);
}

/**
 * Arrays and objects (alias representatives) whose contents the function changes anywhere: by an
 * element or field store, a writing intrinsic or a call that writes the argument, through any alias.
 */
function writtenArrays(cx: AdjointContext): Set<string> {
  if (cx.writtenSet) return cx.writtenSet;
  return (cx.writtenSet = writtenIn(cx, cx.f.body));
}

/**
 * The alias representatives of the arrays and objects the statements `list` change; with `slotsOnly`,
 * of those whose references may change (a number stored into an element or a field changes no
 * reference: `row = M[i]` still gives the same row)
 */
function writtenIn(cx: AdjointContext, list: Stmt[], slotsOnly = false): Set<string> {
  const written = new Set<string>();
  const add = (e: Expr) => {
    const r = rootVar(e);
    if (r) written.add(aliasRep(cx, r));
  };
  forEachStmt(list, (st) => {
    if (st.k === 'assign' && st.target.k !== 'var' && (!slotsOnly || isRef(st.target.ty))) add(st.target);
    if (st.k === 'expr' && st.e.k === 'intr' && WRITING_INTRINSICS.has(st.e.fn)) add(st.e.args[0]);
    for (const c of stmtCalls(st)) {
      // (a callee storing only numbers into an argument changes none of its references)
      const w = slotsOnly ? computeSlotWrites(cx.info.mod).get(c.fn) : cx.info.activity.writes.get(c.fn);
      c.args.forEach((a, j) => {
        if (w?.has(j)) add(a);
      });
    }
  });
  return written;
}

/**
 * Names whose value never changes once defined: parameters never assigned and top-level
 * declarations defined once, arrays among them never written (directly, by calls, through aliases).
 */
function stable(cx: AdjointContext): Set<string> {
  if (cx.stableSet) return cx.stableSet;
  const defs = new Map<string, number>();
  forEachStmt(cx.f.body, (st) => {
    const n = st.k === 'decl' ? st.name : st.k === 'assign' && st.target.k === 'var' ? st.target.name : null;
    if (n) defs.set(n, (defs.get(n) ?? 0) + 1);
  });
  const written = writtenArrays(cx);
  const out = new Set<string>();
  const ok = (n: string, ty: Ty) => !isRef(ty) || !written.has(aliasRep(cx, n));
  for (const p of cx.f.params) if (!defs.has(p.name) && ok(p.name, p.ty)) out.add(p.name);
  for (const st of cx.f.body) if (st.k === 'decl' && st.init && defs.get(st.name) === 1 && ok(st.name, st.ty)) out.add(st.name);
  return (cx.stableSet = out);
}

/**
 * `i = i ± e` on an integer, with e an integer expression of variables and literals: undone exactly
 * by `i = i ∓ e` in the backward sweep instead of a push and a pop (e's variables are then read there,
 * so TBR restores them when needed).
 */
function inverseOf(cx: AdjointContext, s: Stmt, target: LValue): Stmt | null {
  // `sign = -sign` undoes itself, exactly, for every number
  if (s.k === 'assign' && !s.op && target.k === 'var' && (target.ty.k === 'num' || target.ty.k === 'int') && s.value.k === 'un' && s.value.op === '-' && s.value.a.k === 'var' && s.value.a.name === target.name) return { k: 'assign', target, value: s.value };
  if (s.k !== 'assign' || target.k !== 'var' || target.ty.k !== 'int') return null;
  const v = s.value;
  if (v.k !== 'bin' || (v.op !== '+' && v.op !== '-') || v.a.k !== 'var' || v.a.name !== target.name) return null;
  let ok = tyOf(v.b).k === 'int';
  forEachExpr(v.b, (x) => {
    if (!(x.k === 'num' || (x.k === 'var' && x.name !== target.name && x.ty.k === 'int') || x.k === 'bin' || x.k === 'un')) ok = false;
  });
  if (!ok) return null;
  const op = v.op === '+' ? '-' : '+';
  return { k: 'assign', target, value: { k: 'bin', op, a: target, b: v.b, ty: target.ty }, op, inc: s.k === 'assign' && !!s.inc };
}

/**
 * Values of transcendental calls that the adjoint needs (exp(u) for exp, the sine for cos, …) and
 * that the primal statement computes anyway are recorded instead of evaluated again: one push and
 * one pop cost less than a call to exp or sin (ERA's cost model: recompute what is cheap, store what
 * is not). The forward sweep evaluates the call once into the temporary the adjoint would have used.
 */
export function storeExpensive(cx: AdjointContext, primal: Extract<Stmt, { k: 'assign' }>, adj: Stmt[]): { fwd: Stmt[]; primal: Stmt; adj: Stmt[] } | null {
  if (cx.info.options.recompute === false || primal.k !== 'assign') return null;
  let hasCond = false;
  forEachExpr(primal.value, (x) => {
    if (x.k === 'cond') hasCond = true;
  });
  if (hasCond) return null;
  const temps = new Set<string>();
  for (const st of adj) if (st.k === 'decl') temps.add(st.name);
  const fwd: Stmt[] = [];
  const pushes: Stmt[] = [];
  let value = primal.value;
  const out = adj.map((st) => {
    if (st.k !== 'decl' || !st.init || !expensive(st.init)) return st;
    const init = st.init;
    let usesTemp = false;
    forEachExpr(init, (x) => {
      if (x.k === 'var' && temps.has(x.name)) usesTemp = true;
    });
    let found = false;
    forEachExpr(value, (x) => {
      if (exprEq(x, init)) found = true;
    });
    // a value the innermost loop does not change is left to be evaluated again (it is hoisted)
    if (usesTemp || !found || invariantInLoop(cx, init)) return st;
    // its own name: a re-run region puts both sweeps of the statement in one block
    const name = cx.names.fresh(`${st.name}f`);
    const tv: Expr = { k: 'var', name, ty: NUM };
    value = mapExpr(value, (x) => (exprEq(x, init) ? tv : x));
    fwd.push({ k: 'decl', name, ty: NUM, init, konst: true });
    // popped in the order the adjoint declares them: pushed in the opposite one
    pushes.unshift({ k: 'expr', e: tapeOp(cx, 'pushF', [tv]) });
    return { ...st, init: tapeOp(cx, 'popF', [], NUM) };
  });
  if (!fwd.length) return null;
  return { fwd: [...fwd, ...pushes], primal: { ...primal, value }, adj: out };
}

/**
 * A push on a tape of differentiated code is a write to a stack: the adjoint of the pushed value
 * comes back off the adjoint tape in the backward sweep. Pushed references carry their adjoint
 * aliases on the adjoint tape during the forward sweep.
 */
export function tapePush(cx: AdjointContext, s: Stmt, e: Extract<Expr, { k: 'intr' }>): Pair {
  const [tape, v] = e.args;
  const tb = bwhole(cx, tape);
  if (!tb) return { fwd: [s], bwd: [] };
  const op = (fn: string, args: Expr[], ty: Ty = VOID): Expr => ({ k: 'intr', fn, args: [tb, ...args], ty });
  if (e.fn === 'tape.pushR') return { fwd: [s, { k: 'expr', e: op('tape.pushR', [refAdjoint(cx, v) ?? zerosLike(cx, v)]) }], bwd: [] };
  if (!exprVaried(cx, v, variedIn(cx, s))) return { fwd: [s], bwd: [{ k: 'expr', e: op('tape.popF', [], NUM) }] };
  const pre: Stmt[] = [];
  const ctx = linctx(cx, s, pre);
  const lin = linearizeAt(cx, v, s, pre);
  const seed = cx.names.fresh('popb');
  const incs: Stmt[] = [];
  increments(cx, lin, { k: 'var', name: seed, ty: NUM }, ctx, incs);
  return { fwd: [s], bwd: [{ k: 'decl', name: seed, ty: NUM, init: op('tape.popF', [], NUM), konst: true }, ...pre, ...incs] };
}

/** `x = tape.popF()`: the adjoint of x goes onto the adjoint tape, to meet its push later. */
export function tapePop(cx: AdjointContext, s: Extract<Stmt, { k: 'decl' | 'assign' }>, target: LValue, value: Extract<Expr, { k: 'intr' }>): Pair {
  const tb = bwhole(cx, value.args[0])!;
  const save = saveOnKill(cx, s, target, s.k === 'decl');
  const primal: Stmt = s.k === 'decl' ? declAsAssign(cx, s) : s;
  const root = rootVar(target)!;
  if (value.fn === 'tape.popR') {
    const fwd: Stmt[] = [...save.fwd, primal];
    const popped: Expr = { k: 'intr', fn: 'tape.popR', args: [tb], ty: adjointTy(cx, target.ty) };
    if (hasB(cx, root)) fwd.push({ k: 'assign', target: bwhole(cx, target) as LValue, value: popped });
    else fwd.push({ k: 'expr', e: popped });
    return { fwd, bwd: save.bwd };
  }
  const xb = target.ty.k === 'num' && hasB(cx, root) ? bref(cx, target) : null;
  const bwd: Stmt[] = [...save.bwd, { k: 'expr', e: { k: 'intr', fn: 'tape.pushF', args: [tb, xb ?? { k: 'num', v: 0 }], ty: VOID } }];
  if (xb) bwd.push({ k: 'assign', target: xb, value: { k: 'num', v: 0 } });
  return { fwd: [...save.fwd, primal], bwd };
}

/** `a.push(v)`: the adjoint array grows alongside; backwards, both shrink again */
export function push(cx: AdjointContext, s: Stmt, e: Extract<Expr, { k: 'intr' }>): Pair {
  const [arr, v] = e.args;
  const root = rootVar(arr)!;
  const ab = hasB(cx, root) ? bwhole(cx, arr) : null;
  const fwd: Stmt[] = [s];
  const bwd: Stmt[] = [];
  const op = (fn: string, args: Expr[], ty: Ty = VOID): Stmt => ({ k: 'expr', e: { k: 'intr', fn, args, ty } });
  if (mustRecord(cx, s, root, true)) bwd.push(op('pop', [arr]));
  if (ab) {
    fwd.push(op('push', [ab, isRef(tyOf(v)) ? refAdjoint(cx, v) ?? zerosLike(cx, v) : { k: 'num', v: 0 }]));
    if (!isRef(tyOf(v)) && exprVaried(cx, v, variedIn(cx, s))) {
      const pre: Stmt[] = [];
      const ctx = linctx(cx, s, pre);
      const lin = linearizeAt(cx, v, s, pre);
      const incs: Stmt[] = [];
      const last: Expr = { k: 'idx', obj: ab, index: { k: 'bin', op: '-', a: { k: 'len', obj: ab }, b: { k: 'num', v: 1 }, ty: INT }, ty: NUM };
      increments(cx, lin, last, ctx, incs);
      bwd.push(...pre, ...incs);
    }
    // a pushed literal or copy: its adjoint, the last element of the adjoint array, flows back
    if (isRef(tyOf(v))) bwd.push(...freshValueAdjoint(cx, s, v, { k: 'idx', obj: ab, index: { k: 'bin', op: '-', a: { k: 'len', obj: ab }, b: { k: 'num', v: 1 }, ty: INT }, ty: adjointTy(cx, tyOf(v)) } as LValue));
    bwd.push(op('pop', [ab]));
  }
  return { fwd, bwd };
}

/**
 * `a.pop()` as a statement (the front end reads a used value before it): the forward sweep records the
 * element it removes and drops its adjoint; the backward sweep puts the element back. A number comes
 * back with a zero adjoint, which what earlier statements wrote into it then accumulate into. A row or
 * object comes back as the same reference, and so does its shadow (recorded too): another name may
 * still hold the row, and its adjoint must be the one that name's accumulated into.
 */
export function pop(cx: AdjointContext, s: Stmt, e: Extract<Expr, { k: 'intr' }>): Pair {
  const arr = e.args[0];
  const root = rootVar(arr)!;
  const ab = hasB(cx, root) ? bwhole(cx, arr) : null;
  const at = tyOf(arr);
  const elem = at.k === 'arr' ? at.elem : NUM;
  const op = (fn: string, args: Expr[]): Stmt => ({ k: 'expr', e: { k: 'intr', fn, args, ty: VOID } });
  const lastOf = (a: Expr, ty: Ty): Expr => ({ k: 'idx', obj: a, index: { k: 'bin', op: '-', a: { k: 'len', obj: a }, b: { k: 'num', v: 1 }, ty: INT }, ty });
  const fwd: Stmt[] = [];
  const bwd: Stmt[] = [];
  if (mustRecord(cx, s, root, true)) {
    cx.pushSites.push(`${cx.pushSites.length}:${root}`);
    fwd.push({ k: 'expr', e: tapeOp(cx, isRef(elem) ? 'pushR' : 'pushF', [lastOf(arr, elem)]) });
    bwd.push(op('push', [arr, tapeOp(cx, isRef(elem) ? 'popR' : 'popF', [], elem)]));
  }
  fwd.push(s);
  if (ab && isRef(elem)) {
    const elemB = adjointTy(cx, elem);
    fwd.push({ k: 'expr', e: tapeOp(cx, 'pushR', [lastOf(ab, elemB)]) }, op('pop', [ab]));
    bwd.unshift(op('push', [ab, tapeOp(cx, 'popR', [], elemB)]));
  } else if (ab) {
    fwd.push(op('pop', [ab]));
    bwd.push(op('push', [ab, { k: 'num', v: 0 }]));
  }
  return { fwd, bwd };
}

const bodyFactsOf = new WeakMap<AdjointContext, { defs: Map<string, number>; writtenFrom: (top: number, slotsOnly: boolean) => Set<string> }>();

/** what recomputableDecls asks of the whole body for each loop and round, found once per function */
function bodyFacts(cx: AdjointContext): { defs: Map<string, number>; writtenFrom: (top: number, slotsOnly: boolean) => Set<string> } {
  let facts = bodyFactsOf.get(cx);
  if (facts) return facts;
  const defs = new Map<string, number>();
  forEachStmt(cx.f.body, (st) => {
    const name = st.k === 'decl' ? (st.init ? st.name : null) : st.k === 'assign' && st.target.k === 'var' ? st.target.name : null;
    if (name) defs.set(name, (defs.get(name) ?? 0) + 1);
  });
  // (what each top-level statement writes, found once: a loop asks of the statements from its own on)
  const byStmt = new Map<boolean, Set<string>[]>();
  const written = new Map<string, Set<string>>();
  const writtenFrom = (top: number, slotsOnly: boolean) => {
    const key = `${top}|${slotsOnly}`;
    let w = written.get(key);
    if (w) return w;
    let each = byStmt.get(slotsOnly);
    if (!each) byStmt.set(slotsOnly, (each = cx.f.body.map((st) => writtenIn(cx, [st], slotsOnly))));
    w = new Set<string>();
    for (let i = top; i < each.length; i++) for (const n of each[i]) w.add(n);
    written.set(key, w);
    return w;
  };
  bodyFactsOf.set(cx, (facts = { defs, writtenFrom }));
  return facts;
}

/**
 * Recomputation instead of recording (Tapenade §4.9, ERA's local slices): a constant declared at the
 * top of a counted loop's body from the index and values that never change (`const row = m[i]`) is
 * evaluated again at the start of each reversed iteration, instead of being pushed and popped.
 */
export function recomputableDecls(cx: AdjointContext, body: Stmt[], index: string): Extract<Stmt, { k: 'decl' }>[] {
  const facts = bodyFacts(cx);
  const defs = facts.defs;
  // a store through an alias (`const t = b; t[0] = …`) or a call writes b too; stores made by the
  // top-level statements before the loop's are undone only after the reversed loop has run (the
  // backward sweep reverses them later), so during it the arrays hold what the forward loop read
  const top = cx.f.body.findIndex((st) => containsBody(st, body));
  const written = top > 0 ? facts.writtenFrom(top, false) : writtenArrays(cx);
  // a reference taken from a container (`const a = particles[i]`) is the same object again while no
  // reference in the container changes, whatever numbers are stored into the objects
  const slotsWritten = facts.writtenFrom(Math.max(top, 0), true);
  const params = new Set(cx.f.params.map((p) => p.name));
  const topLevel = new Set(cx.f.body.filter((st) => st.k === 'decl').map((st) => (st as { name: string }).name));
  // a variable the loop never assigns holds, in each reversed iteration, the value the forward
  // iteration read: later assignments outside the loop are undone before it (the loop's reads are
  // reported to the recording analysis with its bounds', below in reverse-loop.ts)
  const assignedInLoop = new Set<string>();
  forEachStmt(body, (st) => {
    if (st.k === 'decl') assignedInLoop.add(st.name);
    if (st.k === 'assign' && st.target.k === 'var') assignedInLoop.add(st.target.name);
  });
  const local = primalNames(cx);
  const chosen = new Set<string>();
  const stable = (v: string) =>
    v === index || chosen.has(v) || (params.has(v) ? !defs.has(v) : defs.get(v) === 1 && topLevel.has(v)) || (local.has(v) && !assignedInLoop.has(v) && !cx.tapes.has(v));
  let lengths: Set<string> | null = null;
  const lengthsInLoop = () => (lengths ??= lengthsChangedIn(cx, body));
  const out: Extract<Stmt, { k: 'decl' }>[] = [];
  for (const st of body) {
    if (st.k !== 'decl' || !st.init) continue;
    const changed = isRef(st.ty) ? slotsWritten : written;
    if (defs.get(st.name) !== 1 || changed.has(aliasRep(cx, st.name)) || storeForced(cx, st)) continue;
    if (!cheap(st.init)) continue;
    let ok = true;
    forEachExpr(st.init, (x) => {
      if (x.k === 'var' && !stable(x.name)) ok = false;
      // (a reference read along the way, `M[i]` in `M[i][j]`, is loaded again too: its container's references count)
      if ((x.k === 'idx' || x.k === 'field') && (!rootVar(x) || (isRef(x.ty) ? slotsWritten : changed).has(aliasRep(cx, rootVar(x)!)))) ok = false;
      // (a length the loop changes, by a push or a store past the end, is not the one read at the top)
      if (x.k === 'len' && (!rootVar(x.obj) || lengthsInLoop().has(aliasRep(cx, rootVar(x.obj)!)))) ok = false;
    });
    if (!ok) continue;
    chosen.add(st.name);
    out.push(st);
  }
  return out;
}

/** is `body` the body of `st` or of a statement nested in it? */
function containsBody(st: Stmt, body: Stmt[]): boolean {
  let found = false;
  forEachStmt([st], (x) => {
    if ((x.k === 'for' || x.k === 'while' || x.k === 'do' || x.k === 'block') && x.body === body) found = true;
  });
  return found;
}

/**
 * `// $ad store` on a statement (or a loop: every statement inside), or `// $ad store a, b` anywhere
 * in the function for variables: their values are recorded, never recomputed (TAF's STORE).
 */
export function storeForced(cx: AdjointContext, st: Stmt): boolean {
  if (!cx.storedVars) {
    cx.storedVars = new Set();
    cx.storedStmts = new Set();
    forEachStmt(cx.f.body, (x) => {
      for (const c of x.comments ?? []) {
        const args = directiveArgs(c, 'store');
        if (args === null) continue;
        const names = args.split(/[\s,]+/).filter((n) => /^[A-Za-z_$][\w$]*$/.test(n));
        if (names.length) for (const n of names) cx.storedVars!.add(n);
        else forEachStmt([x], (y) => void cx.storedStmts!.add(y));
      }
    });
  }
  if (cx.storedStmts!.has(st)) return true;
  const target = st.k === 'decl' ? st.name : st.k === 'assign' ? rootVar(st.target) : null;
  if (target && cx.storedVars.has(target)) return true;
  if (st.k === 'for') {
    let any = false;
    forEachStmt(st.body, (y) => {
      if (y.k === 'assign' || y.k === 'decl') {
        const r = y.k === 'decl' ? y.name : rootVar(y.target);
        if (r && cx.storedVars!.has(r)) any = true;
      }
    });
    return any;
  }
  return false;
}

/** the recomputation of `d` (and of its adjoint alias) at the start of a reversed iteration */
export function recomputation(cx: AdjointContext, d: Extract<Stmt, { k: 'decl' }>): Stmt[] {
  const v: LValue = { k: 'var', name: d.name, ty: d.ty };
  // the value itself only where the backward sweep reads it (the previous round's reads)
  const out: Stmt[] = cx.readsInBwd.has(d.name) || cx.readsInFused.has(d.name) ? [{ k: 'assign', target: v, value: d.init! }] : [];
  if (isRef(d.ty) && hasB(cx, d.name)) {
    const bv = bwhole(cx, v) as LValue | null;
    const ba = refAdjoint(cx, d.init!);
    if (bv && ba) out.push({ k: 'assign', target: bv, value: ba });
  }
  return out;
}

/** transcendental calls: dearer than a push and a pop */
const EXPENSIVE = new Set(['Math.exp', 'Math.expm1', 'Math.log', 'Math.log1p', 'Math.log2', 'Math.log10', 'Math.pow', 'Math.sin', 'Math.cos', 'Math.tan', 'Math.asin', 'Math.acos', 'Math.atan', 'Math.atan2', 'Math.sinh', 'Math.cosh', 'Math.tanh', 'Math.asinh', 'Math.acosh', 'Math.atanh', 'Math.cbrt']);

function expensive(e: Expr): boolean {
  return (e.k === 'intr' && EXPENSIVE.has(e.fn)) || (e.k === 'bin' && e.op === '**');
}

/** cheap enough to evaluate again: loads and a little integer arithmetic */
function cheap(e: Expr): boolean {
  switch (e.k) {
    case 'var':
    case 'num':
    case 'global':
      return true;
    case 'idx':
      return cheap(e.obj) && cheap(e.index);
    case 'field':
    case 'len':
      return cheap(e.obj);
    case 'bin':
      return (e.op === '+' || e.op === '-' || e.op === '*') && cheap(e.a) && cheap(e.b);
    default:
      return false;
  }
}
