// Adjoints of assignments and declarations: linearization of the right-hand side, increments of the
// adjoints it reads, reset of the target's adjoint; array and object literals and whole-array
// references.
import { stmtCalls } from '../../analysis/activity.js';
import type { Expr, LValue, Stmt, Ty } from '../../ir/types.js';
import { BOOL, countedFor, exprEq, forEachExpr, forEachStmt, hasFloat, INT, isOptionalRead, isRef, mapExpr, NUM, rootVar, tyOf, VOID } from '../../ir/util.js';
import { adjointOf, hasSelect, type LinContext, linearize, LinError } from '../linearize.js';
import { TransformError } from '../tangent.js';
import { call, passiveCallSnapshots } from './calls.js';
import { type AdjointContext, adjointTy, aliasRep, bwhole, exprVaried, hasB, type Pair, scratchOf, usefulOut, variedIn, zerosLike } from './context.js';
import { saveOnKill, storeExpensive, tapePop } from './record.js';
import { bornLiteral, growShadow, shadowLengthRestore } from './grown-lengths.js';
import { freshValueAdjoint, holdShadow, rebuildsFromOld } from './references.js';
import { allocationAgain, callLocalArrays, keptPerIteration, shadowAgain } from './reused-shadows.js';

// ---------- assignments ----------
export function assign(cx: AdjointContext, s: Extract<Stmt, { k: 'decl' | 'assign' }>): Pair {
  const value = s.k === 'decl' ? s.init : s.value;
  const p = assignValue(cx, s);
  // `y = g(a)` with g passive: what g writes into arrays is restored like any other overwrite
  if (value && value.k === 'call' && !cx.info.differentiated(value.fn) && cx.info.mod.funcs.has(value.fn)) {
    const snaps = passiveCallSnapshots(cx, s, value);
    return { fwd: [...snaps.fwd, ...p.fwd], bwd: [...p.bwd, ...snaps.bwd] };
  }
  return p;
}

function assignValue(cx: AdjointContext, s: Extract<Stmt, { k: 'decl' | 'assign' }>): Pair {
  const value = s.k === 'decl' ? s.init : s.value;
  const target: LValue = s.k === 'decl' ? { k: 'var', name: s.name, ty: s.ty } : s.target;
  const isFirstDef = s.k === 'decl';
  if (value && value.k === 'call' && cx.info.differentiated(value.fn)) return call(cx, s, value, target);
  if (value && value.k === 'intr' && (value.fn === 'tape.popF' || value.fn === 'tape.popR') && value.args[0].k === 'var' && hasB(cx, value.args[0].name)) return tapePop(cx, s, target, value);
  if (s.k === 'decl' && !s.init) return { fwd: [], bwd: [] };
  const primal: Stmt = s.k === 'decl' ? declAsAssign(cx, s) : s;
  const save = saveOnKill(cx, s, target, isFirstDef);
  const tty = target.ty;
  const root = rootVar(target)!;
  // (an array only this variable names is taken from those the backward sweep gave back, or kept by
  // pass or by fused iteration: reused-shadows.ts)
  // (only where the old value is recorded for nobody: a pushed reference would be this very array)
  const perIteration = !save.fwd.length && !save.bwd.length && value?.k === 'alloc' && target.k === 'var' ? keptPerIteration(cx, s, target.name, isRef(tty) && hasB(cx, root)) : null;
  const kept = save.kept ?? perIteration?.array;
  // (an array the call allocates once and nobody keeps comes from the tape, and goes back to it at the end of the backward sweep)
  const callLocal = !perIteration && !save.fwd.length && !save.bwd.length && value?.k === 'alloc' && s.k === 'decl' && cx.f.body.includes(s) && callLocalArrays(cx).has(s.name);
  const fwd: Stmt[] = [...save.fwd, (save.reusedShadow || perIteration || callLocal) && primal.k === 'assign' && primal.value.k === 'alloc' ? { ...primal, value: allocationAgain(cx, primal.value, kept) } : primal];
  const bwd: Stmt[] = [];
  // reference assignments: the adjoint aliases (or is allocated like) the primal, in the forward sweep
  if (isRef(tty) && hasB(cx, root) && value) {
    const bv = refAdjoint(cx, value);
    const bt = bwhole(cx, target) as LValue | null;
    const keptShadow = (perIteration?.shadow || callLocal) && value.k === 'alloc' && bt ? allocationAgain(cx, { ...value, ty: bt.ty }, perIteration?.shadow ?? undefined) : null;
    if (bt) fwd.push({ k: 'assign', target: bt, value: keptShadow ?? (save.reusedShadow && value.k === 'alloc' ? shadowAgain(bt, value.len) : bv ?? zerosLike(cx, target)) });
    // an adjoint tape lives until the backward sweep is back where it was acquired
    if (bt && value.k === 'intr' && value.fn === 'Tape.acquire') bwd.push({ k: 'expr', e: { k: 'intr', fn: 'Tape.release', args: [bt], ty: VOID } });
    if (bt && save.bwd.length && builtFresh(value) && rebuildsFromOld(root, [value])) {
      // `s = [s[1], s[0] * 2]`, `s = s.slice()`: the old references come back before the new value's
      // adjoint flows into them
      const { decl, held } = holdShadow(cx, bt);
      bwd.push(decl, ...save.bwd, ...freshValueAdjoint(cx, s, value, held));
      return { fwd, bwd };
    }
    if (bt) bwd.push(...freshValueAdjoint(cx, s, value, bt));
    bwd.push(...save.bwd);
    return { fwd, bwd };
  }
  if (value && hasFloat(tty) && tty.k !== 'int' && hasB(cx, root)) {
    const adj = scalarAdjoint(cx, s, target, value);
    const kept = storeExpensive(cx, primal as Extract<Stmt, { k: 'assign' }>, adj);
    if (kept) {
      // the stored values are pushed before the pre-state, so they are popped after it
      fwd.splice(0, fwd.length, ...kept.fwd, ...save.fwd, kept.primal);
      bwd.push(...kept.adj);
    } else bwd.push(...adj);
  }
  const grown = growShadow(cx, target);
  fwd.push(...grown);
  // restore the pre-state first, then the adjoint statements (which read the pre-state), then the
  // shadow's length (grown-lengths.ts)
  const shrink = grown.length && target.k === 'idx' ? shadowLengthRestore(cx, target, bwhole(cx, target.obj)) : [];
  return { fwd, bwd: [...save.bwd, ...bwd, ...shrink] };
}

/** a new array or object made from parts (a literal, a copy), whose adjoint flows back into them */
function builtFresh(v: Expr): boolean {
  return v.k === 'arrlit' || v.k === 'objlit' || (v.k === 'cond' && (builtFresh(v.a) || builtFresh(v.b))) || (v.k === 'intr' && (v.fn === 'copy' || v.fn === 'snapshot'));
}


/** does `e` read only what the innermost enclosing loop leaves unchanged? */
export function invariantInLoop(cx: AdjointContext, e: Expr): boolean {
  const loop = cx.loops[cx.loops.length - 1];
  if (!loop) return false;
  const written = new Set<string>();
  let opaque = false;
  forEachStmt([loop], (x) => {
    if (x.k === 'decl') written.add(x.name);
    if (x.k === 'assign') {
      const r = rootVar(x.target);
      if (r) written.add(x.target.k === 'var' ? r : aliasRep(cx, r));
    }
    for (const c of stmtCalls(x)) if ((cx.info.activity.writes.get(c.fn)?.size ?? 1) > 0) opaque = true;
    if (x.k === 'expr' && x.e.k === 'intr') opaque = true;
  });
  if (opaque) return false;
  let invariant = true;
  forEachExpr(e, (x) => {
    if (x.k === 'var' && (written.has(x.name) || (isRef(x.ty) && written.has(aliasRep(cx, x.name))))) invariant = false;
  });
  return invariant;
}

/** a statement diff-liveness removed from the forward sweep: its adjoint only */
export function deadAssign(cx: AdjointContext, s: Extract<Stmt, { k: 'decl' | 'assign' }>): Pair {
  const value = s.k === 'decl' ? s.init! : s.value;
  const target: LValue = s.k === 'decl' ? { k: 'var', name: s.name, ty: s.ty } : s.target;
  const root = rootVar(target)!;
  // (the store goes, but an array it would have grown still needs its shadow grown: the backward sweep
  // accumulates into the element, `addInto(outb, resultb)` among others)
  const fwd = growShadow(cx, target);
  if (hasFloat(target.ty) && target.ty.k !== 'int' && !isRef(target.ty) && hasB(cx, root)) return { fwd, bwd: scalarAdjoint(cx, s, target, value) };
  return { fwd, bwd: [] };
}

export function declAsAssign(cx: AdjointContext, s: Extract<Stmt, { k: 'decl' }>): Stmt {
  if (!s.init) return { k: 'block', body: [] };
  return { k: 'assign', target: { k: 'var', name: s.name, ty: s.ty }, value: s.init, loc: s.loc, comments: s.comments };
}

export function linctx(cx: AdjointContext, s: Stmt, pre: Stmt[]): LinContext {
  const V = variedIn(cx, s);
  return { varied: (e) => exprVaried(cx, e, V), pre, names: cx.names };
}

export function linearizeAt(cx: AdjointContext, e: Expr, s: Stmt, pre: Stmt[]) {
  const from = pre.length;
  try {
    const lin = linearize(e, linctx(cx, s, pre));
    const held = new Map<string, Expr>();
    for (let k = from; k < pre.length; k++) {
      pre[k] = holesRestoredAsNaN(cx, pre[k], held);
      const t = pre[k];
      if (t.k === 'decl' && t.init) held.set(t.name, t.init);
    }
    return lin;
  } catch (err) {
    if (err instanceof LinError) throw new TransformError(err.message, err.node.loc ? err.node : s);
    throw err;
  }
}

/**
 * The backward sweep evaluates a conditional expression's test again (its temporaries), on the values
 * it restored. A test whether an element is there (`y[i] ?? 0.5`, `y[i] === undefined ? … : …`) of an
 * array that may have holes and has elements stored into it would then see a hole that a later store
 * filled restored from the float tape as NaN, not undefined, and take the other branch. There the test
 * also takes NaN for a hole: `y[i] !== undefined && !Number.isNaN(y[i])`. (`y[i] || 0` needs nothing:
 * NaN is falsy.) An element that held NaN itself takes the fallback's branch in the backward sweep only.
 */
function holesRestoredAsNaN(cx: AdjointContext, t: Stmt, held: ReadonlyMap<string, Expr>): Stmt {
  if (t.k !== 'decl' || !t.init) return t;
  const truthTested: Expr[] = [];
  forEachExpr(t.init, (x) => {
    if (x.k === 'un' && x.op === '!' && x.a.k === 'un' && x.a.op === '!') truthTested.push(x.a.a);
  });
  let changed = false;
  const init = mapExpr(t.init, (x) => {
    if (x.k !== 'bin' || (x.op !== '!==' && x.op !== '===') || x.b.k !== 'undef') return x;
    // (a temporary holding the element read: `const y_elem = y[i]; … y_elem !== undefined`)
    const read = x.a.k === 'var' ? held.get(x.a.name) ?? x.a : x.a;
    if (read.k !== 'idx' || read.obj.k !== 'var' || truthTested.some((y) => exprEq(y, x.a))) return x;
    const rep = aliasRep(cx, read.obj.name);
    if (!bornLiteral(cx).has(rep) || !elementsStored(cx, rep)) return x;
    changed = true;
    const nan: Expr = { k: 'intr', fn: 'Number.isNaN', args: [x.a], ty: BOOL };
    return x.op === '!=='
      ? { k: 'bin', op: '&&', a: x, b: { k: 'un', op: '!', a: nan, ty: BOOL }, ty: BOOL }
      : { k: 'bin', op: '||', a: x, b: nan, ty: BOOL };
  });
  return changed ? { ...t, init } : t;
}

/** does `f` store numbers into elements of the arrays of alias class `rep`, or pass one to a call? */
function elementsStored(cx: AdjointContext, rep: string): boolean {
  let found = false;
  forEachStmt(cx.f.body, (st) => {
    if (st.k === 'assign' && st.target.k === 'idx') {
      const r = rootVar(st.target);
      if (r && aliasRep(cx, r) === rep) found = true;
    }
    for (const c of stmtCalls(st)) for (const a of c.args) if (a.k === 'var' && aliasRep(cx, a.name) === rep) found = true;
  });
  return found;
}

/** the adjoint location of a scalar leaf */
export function bref(cx: AdjointContext, e: Expr): LValue | null {
  if (e.k === 'var') return hasB(cx, e.name) ? { k: 'var', name: cx.b.of(e.name), ty: NUM } : null;
  if (e.k === 'idx' || e.k === 'field') {
    const o = bwhole(cx, e.obj);
    if (!o) return null;
    // (an optional field's adjoint is optional too: read where the primal field is present, so asserted)
    return e.k === 'idx' ? { k: 'idx', obj: o, index: e.index, ty: NUM } : { k: 'field', obj: o, name: e.name, ty: NUM, ...(isOptionalRead(e) ? { nn: true } : {}) };
  }
  return null;
}

export function increments(cx: AdjointContext, lin: ReturnType<typeof linearizeAt>, seed: Expr, ctx: LinContext, out: Stmt[]): void {
  let cur = out;
  adjointOf(
    lin,
    seed,
    ctx,
    (leaf, inc) => pushIncrement(cx, leaf, inc, cur),
    (c, a, b) => {
      // the adjoint of `c ? x : y` flows into the taken branch only; `c` was evaluated once already
      const saved = cur;
      const then: Stmt[] = [], els: Stmt[] = [];
      cur = then;
      a();
      cur = els;
      b();
      cur = saved;
      if (then.length || els.length) cur.push({ k: 'if', c, then, else: els });
    },
  );
}

/** `leafb += inc`, written `leafb -= x` when the increment is a negation */
function pushIncrement(cx: AdjointContext, leaf: Expr, inc: Expr, out: Stmt[]): void {
  const lb = bref(cx, leaf);
  if (!lb) return;
  const st: Stmt =
    inc.k === 'un' && inc.op === '-'
      ? { k: 'assign', target: lb, value: { k: 'bin', op: '-', a: lb, b: inc.a, ty: NUM }, op: '-' }
      : { k: 'assign', target: lb, value: { k: 'bin', op: '+', a: lb, b: inc, ty: NUM }, op: '+' };
  // an optional field absent from the primal object has no adjoint to accumulate into (the caller's
  // adjoint object mirrors the primal): only where it is present
  if (leaf.k === 'field' && tyOf(leaf).k === 'opt') out.push({ k: 'if', c: { k: 'bin', op: '!==', a: leaf, b: { k: 'undef' }, ty: BOOL }, then: [st], else: [] });
  else out.push(st);
}

/** Adjoint of `target = value` for a scalar location, in backward order. */
function scalarAdjoint(cx: AdjointContext, s: Stmt, target: LValue, value: Expr): Stmt[] {
  const tb = bref(cx, target);
  if (!tb) return [];
  const root = rootVar(target)!;
  const rep = aliasRep(cx, root);
  const V = variedIn(cx, s);
  const U = usefulOut(cx, s);
  const out: Stmt[] = [];
  const reset: Stmt = { k: 'assign', target: tb, value: { k: 'num', v: 0 } };
  if (!U.has(rep) || !exprVaried(cx, value, V)) {
    // the adjoint of the target does not flow anywhere: it only restarts from zero
    if (target.k !== 'var' || V.has(rep) || cx.loopDepth > 0) out.push(reset);
    return out;
  }
  if (value.k === 'intr' && value.fn === 'Math.hypotOf' && target.k === 'var') return hypotOfArrayAdjoint(cx, value.args[0], tb, reset);
  const pre: Stmt[] = [];
  const ctx = linctx(cx, s, pre);
  const lin = linearizeAt(cx, value, s, pre);
  const incs: Stmt[] = [];
  if (!hasSelect(lin) && (target.k === 'var' || !mayAlias(cx, target, value))) {
    // Tapenade's merged form: increments of the other variables first, then the target's adjoint
    // becomes the sum of its own partials (x = x * y → xb = y * xb)
    let self: Expr | null = null;
    adjointOf(lin, tb, ctx, (leaf, inc) => {
      if (exprEq(leaf, target)) self = self ? { k: 'bin', op: '+', a: self, b: inc, ty: NUM } : inc;
      else pushIncrement(cx, leaf, inc, incs);
    });
    const selfE = self as Expr | null;
    if (selfE && exprEq(selfE, tb)) return [...pre, ...incs];
    return [...pre, ...incs, { k: 'assign', target: tb, value: selfE ?? { k: 'num', v: 0 } }];
  }
  if (mayAlias(cx, target, value)) {
    const tmp = cx.names.fresh('tempb');
    const tv: Expr = { k: 'var', name: tmp, ty: NUM };
    const head: Stmt[] = [{ k: 'decl', name: tmp, ty: NUM, init: tb, konst: true }, reset];
    increments(cx, lin, tv, ctx, incs);
    return [...head, ...pre, ...incs];
  }
  if (hasSelect(lin)) {
    // the target may be read inside a branch: take its adjoint out first
    const tmp = cx.names.fresh('tempb');
    const tv: Expr = { k: 'var', name: tmp, ty: NUM };
    increments(cx, lin, tv, ctx, incs);
    return [{ k: 'decl', name: tmp, ty: NUM, init: tb, konst: true }, reset, ...pre, ...incs];
  }
  increments(cx, lin, tb, ctx, incs);
  return [...pre, ...incs, reset];
}

/**
 * `h = Math.hypot(...a)`: āᵢ += aᵢ / h · h̄, 0 at the origin. h is recomputed here (one pass, like
 * the increments) rather than recorded.
 */
function hypotOfArrayAdjoint(cx: AdjointContext, arr: Expr, tb: LValue, reset: Stmt): Stmt[] {
  const i = cx.names.fresh('i');
  const elem: Expr = { k: 'idx', obj: arr, index: { k: 'var', name: i, ty: INT }, ty: NUM };
  const eb = bref(cx, elem);
  if (!eb) return [reset];
  const norm = cx.names.fresh('norm');
  const nv: Expr = { k: 'var', name: norm, ty: NUM };
  const inc: Expr = { k: 'bin', op: '*', a: { k: 'bin', op: '/', a: elem, b: nv, ty: NUM }, b: tb, ty: NUM };
  return [
    { k: 'decl', name: norm, ty: NUM, init: { k: 'intr', fn: 'Math.hypotOf', args: [arr], ty: NUM }, konst: true },
    { k: 'if', c: { k: 'bin', op: '!==', a: nv, b: { k: 'num', v: 0 }, ty: BOOL }, then: [countedFor(i, { k: 'len', obj: arr }, [{ k: 'assign', target: eb, value: { k: 'bin', op: '+', a: eb, b: inc, ty: NUM }, op: '+' }])], else: [] },
    reset,
  ];
}

/**
 * Does `value` read a location that may or may not be the target (a[j] for target a[i])? Reads of
 * exactly the target are not a risk: the merged form handles them.
 */
function mayAlias(cx: AdjointContext, target: LValue, value: Expr): boolean {
  const root = rootVar(target);
  if (!root) return true;
  const rep = aliasRep(cx, root);
  // (a scratch field's array is reached through its one alias only, which shares the instance's
  // alias class: `z[r] += self.lower[t] * diff[c]` reads no element of z: analysis/scratch-fields.ts)
  const scratch = scratchOf(cx).aliases.get(cx.name);
  const own = (v: string) => scratch?.has(v) ?? false;
  let risk = false;
  forEachExpr(value, (x) => {
    if ((x.k === 'idx' || x.k === 'field') && x.ty.k === 'num' && !exprEq(x, target)) {
      const r = rootVar(x);
      if (r && aliasRep(cx, r) === rep && (r === root || !(own(r) || own(root)))) risk = true;
    }
  });
  return risk;
}

export function refAdjoint(cx: AdjointContext, e: Expr): Expr | null {
  switch (e.k) {
    case 'var':
    case 'idx':
    case 'field':
    case 'sub':
      return bwhole(cx, e);
    case 'alloc':
      return { k: 'alloc', len: e.len, fill: e.fill && tyOf(e.fill).k !== 'bool' ? { k: 'num', v: 0 } : null, ty: adjointTy(cx, e.ty) };
    case 'intr':
      if (e.fn === 'copy' || e.fn === 'snapshot') return zerosLike(cx, e);
      if (e.fn === 'Tape.acquire') return e;
      return null;
    case 'cond':
      return { k: 'cond', c: e.c, a: refAdjoint(cx, e.a) ?? zerosLike(cx, e.a), b: refAdjoint(cx, e.b) ?? zerosLike(cx, e.b), ty: adjointTy(cx, e.ty) };
    case 'arrlit':
      return { k: 'arrlit', elems: e.elems.map((x) => (isRef(tyOf(x)) ? refAdjoint(cx, x) ?? zerosLike(cx, x) : { k: 'num', v: 0 })), ty: adjointTy(cx, e.ty) };
    case 'objlit': {
      // (an optional field the literal leaves out has no adjoint either)
      const fields = (e.ty.k === 'obj' ? e.ty.fields : []).filter((f) => hasFloat(f.ty) && e.fields.some((x) => x.name === f.name));
      return {
        k: 'objlit',
        fields: fields.map((f) => {
          const v = e.fields.find((x) => x.name === f.name)!.value;
          return { name: f.name, value: isRef(tyOf(v)) ? refAdjoint(cx, v) ?? zerosLike(cx, v) : { k: 'num', v: 0 } };
        }),
        ty: adjointTy(cx, e.ty),
      };
    }
    default:
      return null;
  }
}

/** `[x, y]` / `{ a: x }`: adjoints of the scalar parts flow from the literal's adjoint. */
/** whether `name` is an optional field of the object type `t` (its adjoint is then an optional field too) */
const optionalField = (t: Ty, name: string): boolean => t.k === 'obj' && t.fields.some((f) => f.name === name && f.optional === true);

export function literalAdjoint(cx: AdjointContext, s: Stmt, lit: Extract<Expr, { k: 'arrlit' | 'objlit' }>, bt: LValue | null, reset = true): Stmt[] {
  if (!bt) return [];
  const out: Stmt[] = [];
  const V = variedIn(cx, s);
  const parts = lit.k === 'arrlit' ? lit.elems.map((v, i) => ({ v, loc: { k: 'idx', obj: bt, index: { k: 'num', v: i }, ty: NUM } as LValue })) : lit.fields.map((f) => ({ v: f.value, loc: { k: 'field', obj: bt, name: f.name, ty: NUM, ...(optionalField(lit.ty, f.name) ? { nn: true } : {}) } as LValue }));
  for (const p of parts) {
    // a nested literal has a fresh adjoint too (not an alias): its parts flow from bt[i]
    if ((p.v.k === 'arrlit' || p.v.k === 'objlit') && exprVaried(cx, p.v, V)) {
      out.push(...literalAdjoint(cx, s, p.v, { ...p.loc, ty: tyOf(p.v) }, reset));
      continue;
    }
    // a copy in the literal (`[a[0].slice(), …]`) has a fresh adjoint that flows back into its source
    const copied = p.v.k === 'intr' && (p.v.fn === 'copy' || p.v.fn === 'snapshot') ? bwhole(cx, p.v.args[0]) : null;
    if (copied) out.push({ k: 'expr', e: { k: 'intr', fn: 'addInto', args: [copied, { ...p.loc, ty: tyOf(p.v) }], ty: VOID } });
    if (isRef(tyOf(p.v)) || !exprVaried(cx, p.v, V)) continue;
    const pre: Stmt[] = [];
    const ctx = linctx(cx, s, pre);
    const lin = linearizeAt(cx, p.v, s, pre);
    const incs: Stmt[] = [];
    increments(cx, lin, p.loc, ctx, incs);
    out.push(...pre, ...incs);
    if (reset) out.push({ k: 'assign', target: p.loc, value: { k: 'num', v: 0 } });
  }
  // array or object parts alias their own adjoints already, except in a returned literal
  if (!reset)
    parts.forEach((p, i) => {
      if (!isRef(tyOf(p.v))) return;
      const pb = bwhole(cx, p.v);
      const part: Expr = lit.k === 'arrlit' ? { k: 'idx', obj: bt, index: { k: 'num', v: i }, ty: tyOf(p.v) } : { k: 'field', obj: bt, name: (lit.fields[i] as { name: string }).name, ty: tyOf(p.v) };
      if (pb) out.push({ k: 'expr', e: { k: 'intr', fn: 'addInto', args: [pb, part], ty: VOID } });
    });
  return out;
}
