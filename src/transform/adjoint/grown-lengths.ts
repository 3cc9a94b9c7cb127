// Arrays that grow by stores past their end, and their lengths in the backward sweep. A store
// `out[k] = …` into an array born of a literal may lengthen it; the backward sweep reads lengths (loop
// bounds, `s / out.length`) where the forward sweep read them, so the length before such a store is
// recorded and given back (`out.length = n`) when the backward sweep undoes the store, as `pop` undoes
// a `push`.
import { literalFields, literalParams, literalVars } from '../../analysis/grown-arrays.js';
import type { Expr, LValue, Stmt } from '../../ir/types.js';
import { BOOL, exprEq, forEachExpr, forEachStmt, INT, isRef, NUM, rootVar, stmtExprs, tyOf, VOID } from '../../ir/util.js';
import type { ProgramInfo } from '../context.js';
import { TransformError } from '../tangent.js';
import { assignsVar } from './util.js';
import { type AdjointContext, aliasRep, bwhole, type Pair, positions, tapeOp } from './context.js';

/**
 * may a store of a number into `target` grow its array? An array born of a literal (`[]`), a row of one
 * (`C.push([]); C[i][j] = …`, `[[], []]`), a field of an object literal (`{ v: [] }`), a field some
 * function assigns a literal (`this.buf = []`), or an array something shortens (`b.pop(); b[n - 1] = …`);
 * not a typed array, whose length is fixed
 */
export function mayGrow(cx: AdjointContext, target: Extract<LValue, { k: 'idx' }>): boolean {
  const t = tyOf(target.obj);
  if (t.k !== 'arr' || t.typed) return false;
  const root = rootVar(target);
  if (root && bornLiteral(cx).has(aliasRep(cx, root))) return true;
  return target.obj.k === 'field' && literalFieldsOf(cx.info).has(target.obj.name);
}

/** fields some function of the module assigns an array literal (analysis/grown-arrays.ts), per compile */
const fieldsCache = new WeakMap<ProgramInfo, Set<string>>();
export function literalFieldsOf(info: ProgramInfo): Set<string> {
  let out = fieldsCache.get(info);
  if (!out) fieldsCache.set(info, (out = literalFields(info.mod)));
  return out;
}

/** parameters some call may pass an array born of a literal (analysis/grown-arrays.ts), per compile */
const paramsCache = new WeakMap<ProgramInfo, Set<string>>();
export function literalParamsOf(info: ProgramInfo): Set<string> {
  let out = paramsCache.get(info);
  if (!out) paramsCache.set(info, (out = literalParams(info.mod)));
  return out;
}

/**
 * alias classes (by representative) of arrays that some variable takes from an array literal, or that a
 * parameter may receive from one (a memo table `[]` handed to a recursive helper that fills it)
 */
const literalCache = new WeakMap<AdjointContext, Set<string>>();
export function bornLiteral(cx: AdjointContext): Set<string> {
  let out = literalCache.get(cx);
  if (out) return out;
  out = new Set();
  for (const name of literalVars(cx.f)) out.add(aliasRep(cx, name));
  // (`new Array(n)` too: a store at n or beyond grows it like any other array)
  forEachStmt(cx.f.body, (st) => {
    const d = definition(st);
    if (d?.value?.k === 'alloc' && d.value.ty.k === 'arr' && !d.value.ty.typed) out.add(aliasRep(cx, d.name));
  });
  // (an array a `pop`, a `shift` or `length = n` shortens grows again by a store at its old last index)
  for (const rep of shortened(cx, cx.f.body)) out.add(rep);
  const params = literalParamsOf(cx.info);
  for (const p of cx.f.params) if (params.has(`${cx.f.name}\0${p.name}`)) out.add(aliasRep(cx, p.name));
  literalCache.set(cx, out);
  return out;
}

/**
 * The length of `target`'s array before the store, pushed, and set back in the backward sweep once the
 * store's old value is restored (the restore of a hole writes past the old end, which this cuts off
 * again). Only for arrays whose length something may observe after the store.
 */
export function lengthRestore(cx: AdjointContext, s: Stmt, target: LValue): Pair {
  if (!restoresLength(cx, target)) return { fwd: [], bwd: [] };
  const arr = target.obj;
  // (the backward sweep finds the element by the index again, where the length it reads is the grown one)
  if (readsLengthOf(cx, target.index, arr)) {
    const name = rootVar(arr);
    throw new TransformError(`tsad does not differentiate a store at an index computed from the length of the array it may grow: name the index first (\`const k = ${name}.length + 1; ${name}[k] = …\`)`, s);
  }
  return {
    fwd: [{ k: 'expr', e: tapeOp(cx, 'pushI', [{ k: 'len', obj: arr }]) }],
    bwd: [{ k: 'expr', e: { k: 'intr', fn: 'truncate', args: [arr, tapeOp(cx, 'popI', [], INT)], ty: VOID } }],
  };
}

/**
 * `out[i] = …` into an array that began as a literal (`const out: number[] = []`) may store past its
 * end, growing it: its shadow grows with it in the forward sweep (a zero where the primal stored), so
 * that the backward sweep finds the element it accumulates into.
 */
export function growShadow(cx: AdjointContext, target: LValue): Stmt[] {
  if (target.k !== 'idx' || isRef(target.ty) || !mayGrow(cx, target) || withinLength(cx, target)) return [];
  const ob = bwhole(cx, target.obj);
  if (!ob) return [];
  const slot: LValue = { k: 'idx', obj: ob, index: target.index, ty: NUM };
  // (tested by the element, not by the length: a store that leaves a hole, filled by a later store,
  // `r[0] = …; r[2] = …; r[1] = …`, must still find a zero there)
  return [{ k: 'if', c: { k: 'bin', op: '===', a: slot, b: { k: 'undef' }, ty: BOOL }, then: [{ k: 'assign', target: slot, value: { k: 'num', v: 0 } }], else: [] }];
}

/** is the length of `target`'s array recorded before the store and set back when it is undone? */
export function restoresLength(cx: AdjointContext, target: LValue): target is Extract<LValue, { k: 'idx' }> {
  return target.k === 'idx' && mayGrow(cx, target) && !withinLength(cx, target) && lengthObserved(cx, target);
}

/**
 * The shadow of an array whose length is set back, cut to the same length once the store's adjoint is
 * taken from it: the backward sweep of a `push` finds its element at the shadow's end.
 */
export function shadowLengthRestore(cx: AdjointContext, target: LValue, shadow: Expr | null): Stmt[] {
  if (!shadow || !restoresLength(cx, target)) return [];
  return [{ k: 'expr', e: { k: 'intr', fn: 'truncate', args: [shadow, { k: 'len', obj: target.obj }], ty: VOID } }];
}

/**
 * is the store's index below its array's length, by its form or by the loop around it? `a[a.length - 1]`,
 * `a[(i + 1) % a.length]`, `row[n - 1]` for `row = new Array(n)`, `for (…; i < a.length; i++) a[i] = …`, `for (…; i + 2 <
 * xs.length; i++) out[i] = …` for `out = new Array(xs.length - 2)`: with `i` assigned only by the loop's
 * update, and nothing in the body that could shorten the array (a `pop`, a call it is passed to). A
 * negative index is a key, no element: it grows nothing.
 */
export function withinLength(cx: AdjointContext, target: Extract<LValue, { k: 'idx' }>): boolean {
  const arr = target.obj;
  const index = offsetForm(target.index);
  const alloc = allocLength(cx, arr);
  // the length as `e + δ`, where `e` is the array's own length or what it was allocated with
  const delta = (e: Expr | null): number | null => {
    if (e && e.k === 'len' && sameArray(cx, e.obj, arr)) return 0;
    if (alloc && (e === null ? alloc.base === null : alloc.base !== null && exprEq(alloc.base, e))) return alloc.off;
    return null;
  };
  // (`a[(i + 1) % a.length] = …`: a remainder of the length is below it, or negative, or NaN: no element)
  if (target.index.k === 'bin' && target.index.op === '%' && target.index.b.k === 'len' && sameArray(cx, target.index.b.obj, arr)) return true;
  const direct = delta(index.base);
  if (direct !== null) return index.off <= direct - 1;
  const i = index.base;
  if (!i || i.k !== 'var') return false;
  const loop = [...cx.loops].reverse().find((l) => l.k === 'for' && l.update.some((u) => u.k === 'assign' && u.target.k === 'var' && u.target.name === i.name));
  if (!loop || loop.k !== 'for' || !loop.cond) return false;
  const c = loop.cond;
  if (c.k !== 'bin' || (c.op !== '<' && c.op !== '<=')) return false;
  const counter = offsetForm(c.a);
  const bound = offsetForm(c.b);
  if (counter.base?.k !== 'var' || counter.base.name !== i.name) return false;
  const d = delta(bound.base) ?? allocatedBefore(cx, arr, loop, bound.base);
  // i + counter.off < bound + bound.off, so index = i + index.off < bound + bound.off - counter.off + index.off
  if (d === null || bound.off - counter.off + index.off > (c.op === '<' ? d : d - 1)) return false;
  const root = rootVar(target);
  // (the index, the array and what the bound reads keep their values through the body)
  const fixed = new Set([i.name, ...(arr.k === 'var' ? [arr.name] : []), ...boundVars(bound.base)]);
  let unsafe = false;
  forEachStmt(loop.body, (st) => {
    if ((st.k === 'assign' && st.target.k === 'var' && fixed.has(st.target.name)) || (st.k === 'decl' && fixed.has(st.name))) unsafe = true;
    for (const e of stmtExprs(st))
      forEachExpr(e, (x) => {
        if ((x.k === 'call' || x.k === 'intr') && x.args.some((a) => { const r = rootVar(a); return !!r && !!root && aliasRep(cx, r) === aliasRep(cx, root); })) unsafe = true;
      });
  });
  return !unsafe;
}

/** the variable a bound reads: `n`, or `xs` in `xs.length` */
function boundVars(b: Expr | null): string[] {
  if (b?.k === 'var') return [b.name];
  if (b?.k === 'len' && b.obj.k === 'var') return [b.obj.name];
  return [];
}

/**
 * The allocation just before the loop, in the same statement list: `diff = new Array(xi.length)` then
 * `for (j = 0; j < xi.length; j++) diff[j] = …` (how `xi.map(…)` is lowered). δ when the array's last
 * definition before the loop allocates `bound + δ` elements and nothing in between assigns the array or
 * the bound's variable, changes the bound array's length, or shortens the array.
 */
function allocatedBefore(cx: AdjointContext, arr: Expr, loop: Stmt, bound: Expr | null): number | null {
  const vars = boundVars(bound);
  if (arr.k !== 'var' || !bound || !vars.length) return null;
  const pos = positions(cx).get(loop);
  if (!pos) return null;
  const rep = aliasRep(cx, arr.name);
  for (let k = pos.index - 1; k >= 0; k--) {
    const st = pos.list[k];
    const d = definition(st);
    if (d?.name === arr.name) {
      const def = d.value;
      if (!def || def.k !== 'alloc' || (def.ty.k === 'arr' && def.ty.typed)) return null;
      const form = offsetForm(def.len);
      if (!form.base || !exprEq(form.base, bound)) return null;
      const between = pos.list.slice(k + 1, pos.index + 1);
      if (bound.k === 'len' && lengthsChangedIn(cx, between).has(aliasRep(cx, vars[0]))) return null;
      return form.off;
    }
    if ([arr.name, ...vars].some((n) => assignsVar(st, n)) || shortened(cx, [st]).has(rep)) return null;
  }
  return null;
}

/** `e` as `base + off` for an integer constant `off` (`i + 1`, `n - 2`, `a.length`, `3`) */
function offsetForm(e: Expr): { base: Expr | null; off: number } {
  if (e.k === 'num' && Number.isInteger(e.v)) return { base: null, off: e.v };
  if (e.k === 'bin' && (e.op === '+' || e.op === '-') && e.b.k === 'num' && Number.isInteger(e.b.v)) {
    const inner = offsetForm(e.a);
    return { base: inner.base, off: inner.off + (e.op === '+' ? e.b.v : -e.b.v) };
  }
  return { base: e, off: 0 };
}

/**
 * The length every definition of the variable `arr` allocates (`row = new Array(n).fill(0)`,
 * `out = new Array(xs.length - 2)`), as `base + off`, when it is the same each time: `base` is none, a
 * parameter or a variable declared once at the top level and never assigned, or the length of one whose
 * length nothing changes; and no array of its alias class is ever shortened by a `pop`.
 */
function allocLength(cx: AdjointContext, arr: Expr): { base: Expr | null; off: number } | null {
  if (arr.k !== 'var') return null;
  let byName = allocCache.get(cx);
  if (!byName) allocCache.set(cx, (byName = new Map()));
  if (!byName.has(arr.name)) byName.set(arr.name, allocLengthOf(cx, arr.name));
  return byName.get(arr.name)!;
}
const allocCache = new WeakMap<AdjointContext, Map<string, { base: Expr | null; off: number } | null>>();

function allocLengthOf(cx: AdjointContext, name: string): { base: Expr | null; off: number } | null {
  if (cx.f.params.some((p) => p.name === name) || shortened(cx, cx.f.body).has(aliasRep(cx, name))) return null;
  let len: Expr | null = null;
  let ok = true;
  forEachStmt(cx.f.body, (st) => {
    const d = definition(st);
    if (d?.name !== name) return;
    if (!d.value || d.value.k !== 'alloc' || (len && !exprEq(d.value.len, len))) ok = false;
    else len = d.value.len;
  });
  if (!ok || !len) return null;
  const form = offsetForm(len);
  const b = form.base;
  const v = b === null ? null : b.k === 'var' ? b : b.k === 'len' && b.obj.k === 'var' ? b.obj : undefined;
  if (v === undefined) return null;
  if (v && !unchanging(cx, v.name)) return null;
  if (b?.k === 'len' && lengthsChangedInFunction(cx).has(aliasRep(cx, v!.name))) return null;
  return form;
}

/** the variable a statement declares or assigns whole, and its value (null for `let x;`) */
function definition(st: Stmt): { name: string; value: Expr | null } | null {
  if (st.k === 'decl') return { name: st.name, value: st.init };
  if (st.k === 'assign' && st.target.k === 'var') return { name: st.target.name, value: st.value };
  return null;
}

/** the arrays (alias representatives) a `pop` or a length set back in `list` shortens */
function shortened(cx: AdjointContext, list: Stmt[]): Set<string> {
  const out = new Set<string>();
  forEachStmt(list, (st) => {
    for (const e of stmtExprs(st))
      forEachExpr(e, (x) => {
        const r = x.k === 'intr' && (x.fn === 'pop' || x.fn === 'truncate') && x.args[0] ? rootVar(x.args[0]) : null;
        if (r) out.add(aliasRep(cx, r));
      });
  });
  return out;
}

/** a parameter never assigned, or a variable declared once at the function's top level and never assigned */
function unchanging(cx: AdjointContext, name: string): boolean {
  const param = cx.f.params.some((p) => p.name === name);
  let decls = 0;
  let ok = true;
  forEachStmt(cx.f.body, (st) => {
    if (st.k === 'decl' && st.name === name) {
      decls++;
      // (a declaration in a loop may take a new value each time)
      if (!cx.f.body.includes(st)) ok = false;
    }
    if (st.k === 'assign' && st.target.k === 'var' && st.target.name === name) ok = false;
  });
  return ok && (param ? decls === 0 : decls === 1);
}

/** does `e` read the length of `arr`'s array? */
function readsLengthOf(cx: AdjointContext, e: Expr, arr: Expr): boolean {
  let found = false;
  forEachExpr(e, (x) => {
    if (x.k === 'len' && sameArray(cx, x.obj, arr)) found = true;
  });
  return found;
}

/** the same array: the same variable's alias class, or the same row or field expression */
function sameArray(cx: AdjointContext, a: Expr, b: Expr): boolean {
  if (a.k === 'var' && b.k === 'var') return aliasRep(cx, a.name) === aliasRep(cx, b.name);
  return exprEq(a, b);
}

/**
 * may anything read the length of the array `target` stores into: a `.length` of it, a loop over it, or
 * any use that hands it on (a call, an intrinsic, another variable, a return, a field; a parameter's or a
 * field's array is its callers' too)
 */
function lengthObserved(cx: AdjointContext, target: Extract<LValue, { k: 'idx' }>): boolean {
  const root = rootVar(target);
  if (!root || target.obj.k === 'field' || cx.f.params.some((p) => p.name === root)) return true;
  const rep = aliasRep(cx, root);
  let cache = observedCache.get(cx);
  if (!cache) observedCache.set(cx, (cache = new Map()));
  let out = cache.get(rep);
  if (out === undefined) cache.set(rep, (out = anyObservation(cx, rep)));
  return out;
}
const observedCache = new WeakMap<AdjointContext, Map<string, boolean>>();

function anyObservation(cx: AdjointContext, rep: string): boolean {
  const inClass = (e: Expr) => {
    const r = rootVar(e);
    return !!r && aliasRep(cx, r) === rep;
  };
  // `asElement`: e is the object of an element or field access, which reads no length
  const observes = (e: Expr, asElement: boolean): boolean => {
    switch (e.k) {
      case 'var':
        return !asElement && inClass(e);
      case 'idx':
        return (!asElement && isRef(e.ty) && inClass(e)) || observes(e.obj, true) || observes(e.index, false);
      case 'field':
        return (!asElement && isRef(e.ty) && inClass(e)) || observes(e.obj, true);
      case 'len':
        return inClass(e.obj) || observes(e.obj, true);
      case 'bin':
        return observes(e.a, false) || observes(e.b, false);
      case 'un':
        return observes(e.a, false);
      case 'cond':
        return observes(e.c, false) || observes(e.a, false) || observes(e.b, false);
      case 'call':
      case 'intr':
        return e.args.some((a) => observes(a, false));
      case 'arrlit':
        return e.elems.some((a) => observes(a, false));
      case 'objlit':
        return e.fields.some((f) => observes(f.value, false));
      case 'alloc':
        return observes(e.len, false) || (!!e.fill && observes(e.fill, false));
      case 'sub':
        return observes(e.obj, false) || observes(e.start, false) || (!!e.end && observes(e.end, false));
      default:
        return false;
    }
  };
  let found = false;
  forEachStmt(cx.f.body, (s: Stmt) => {
    if (found) return;
    if (s.k === 'assign') {
      const t = s.target;
      found = (t.k !== 'var' && (observes(t.obj, true) || (t.k === 'idx' && observes(t.index, false)))) || observes(s.value, false);
    } else found = stmtExprs(s).some((e) => observes(e, false));
  });
  return found;
}

/**
 * The arrays (alias representatives) whose length the statements `list` may change: a `push`, a `pop`,
 * a store that may grow its array, or a call that writes the array (it may push). A length read again
 * in the backward sweep (recomputation) is the forward sweep's only where none of these intervene.
 */
export function lengthsChangedInFunction(cx: AdjointContext): Set<string> {
  let out = changedCache.get(cx);
  if (!out) changedCache.set(cx, (out = lengthsChangedIn(cx, cx.f.body)));
  return out;
}
const changedCache = new WeakMap<AdjointContext, Set<string>>();

export function lengthsChangedIn(cx: AdjointContext, list: Stmt[]): Set<string> {
  const out = new Set<string>();
  const add = (e: Expr) => {
    const r = rootVar(e);
    if (r) out.add(aliasRep(cx, r));
  };
  forEachStmt(list, (st) => {
    if (st.k === 'assign' && st.target.k === 'idx' && mayGrow(cx, st.target)) add(st.target);
    for (const e of stmtExprs(st))
      forEachExpr(e, (x) => {
        if (x.k === 'intr' && (x.fn === 'push' || x.fn === 'pop' || x.fn === 'truncate') && x.args[0]) add(x.args[0]);
        if (x.k === 'call') {
          const writes = cx.info.activity.writes.get(x.fn);
          x.args.forEach((a, j) => {
            if (isRef(tyOf(a)) && (!writes || writes.has(j))) add(a);
          });
        }
      });
  });
  return out;
}
