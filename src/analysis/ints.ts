// Integer inference: a local is integer-valued only if every definition provably is one. Integer-valued
// (piecewise-constant) values never carry derivatives, so this also feeds activity.
import type { Expr, Func, Module, Stmt, Ty } from '../ir/types.js';
import { INT, forEachExpr, forEachStmt } from '../ir/util.js';
import { perFunction } from '../ir/per-function.js';

const INTEGRAL_MATH = new Set(['Math.floor', 'Math.ceil', 'Math.round', 'Math.trunc', 'Math.sign']);

function isIntExpr(e: Expr, ints: Set<string>): boolean {
  switch (e.k) {
    case 'num':
      return Number.isInteger(e.v);
    case 'len':
      return true;
    case 'var':
      return e.ty.k === 'int' || ints.has(e.name);
    case 'un':
      return e.op === '~' || ((e.op === '-' || e.op === '+') && isIntExpr(e.a, ints));
    case 'bin':
      if (e.op === '|' || e.op === '&' || e.op === '^' || e.op === '<<' || e.op === '>>' || e.op === '>>>') return true;
      if (e.op === '+' || e.op === '-' || e.op === '*' || e.op === '%') return isIntExpr(e.a, ints) && isIntExpr(e.b, ints);
      return false;
    case 'cond':
      return isIntExpr(e.a, ints) && isIntExpr(e.b, ints);
    case 'intr':
      if (INTEGRAL_MATH.has(e.fn) || e.fn === 'tape.popI') return true;
      if (e.fn === 'Math.abs' || e.fn === 'Math.min' || e.fn === 'Math.max') return e.args.every((a) => isIntExpr(a, ints));
      return false;
    default:
      return false;
  }
}

/** Infers integer locals of `f` and retypes their declarations and uses to `int`, in place. */
export function inferInts(f: Func): Set<string> {
  const candidates = new Set<string>();
  const defs = new Map<string, Expr[]>();
  const addDef = (n: string, e: Expr) => {
    const l = defs.get(n);
    if (l) l.push(e);
    else defs.set(n, [e]);
  };
  forEachStmt(f.body, (s: Stmt) => {
    if (s.k === 'decl' && (s.ty.k === 'num' || s.ty.k === 'int')) {
      candidates.add(s.name);
      if (s.init) addDef(s.name, s.init);
    } else if (s.k === 'assign' && s.target.k === 'var') addDef(s.target.name, s.value);
  });
  for (const p of f.params) candidates.delete(p.name);
  const ints = new Set(candidates);
  for (let changed = true; changed; ) {
    changed = false;
    for (const n of [...ints]) {
      if (!(defs.get(n) ?? []).every((e) => isIntExpr(e, ints))) {
        ints.delete(n);
        changed = true;
      }
    }
  }
  const retype = (e: Expr) => {
    if (e.k === 'var' && ints.has(e.name)) (e as { ty: typeof INT }).ty = INT;
  };
  forEachStmt(f.body, (s) => {
    if (s.k === 'decl' && ints.has(s.name)) s.ty = INT;
    const visit = (e: Expr) => forEachExpr(e, retype);
    switch (s.k) {
      case 'decl':
        if (s.init) visit(s.init);
        break;
      case 'assign':
        visit(s.target);
        visit(s.value);
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
      case 'switch':
        visit(s.disc);
        s.cases.forEach((c) => c.tests?.forEach(visit));
        break;
      case 'return':
        if (s.e) visit(s.e);
        break;
      default:
        break;
    }
  });
  return ints;
}

// ---- size parameters ----
// A number parameter whose value only decides control and addressing (loop bounds, indices, lengths) is
// an integer size in all but name: its derivative is zero wherever it exists, so a default signature
// leaves it passive. One that reaches a float value in any way (directly, through a local, a call or the
// result) stays active, as does one that decides only branches (a threshold is not a size).

/** where a value goes: a float, control only, a size (index, length, loop bound), a local, a callee's parameter */
type Sink = 'float' | 'ctl' | 'size' | { local: string } | { callee: string; arg: number };

interface ParamUse {
  /** parameters whose value reaches no float */
  control: Set<string>;
  /** parameters whose value reaches an index, a length or a loop bound */
  sized: Set<string>;
}

const COMPARISONS = new Set(['<', '<=', '>', '>=', '===', '!==', '==', '!=', '&&', '||']);

/** Number parameters of `fn` used only as sizes or indices (see above). */
export function sizeParams(mod: Module, fn: string): Set<string> {
  const f = mod.funcs.get(fn);
  const use = paramUse(mod, fn, new Map());
  return new Set((f?.params ?? []).filter((p) => p.ty.k === 'num' && use.control.has(p.name) && use.sized.has(p.name)).map((p) => p.name));
}

/** a function's scalar parameters and locals, and where each use of a variable's value goes (paramUse's rounds change neither) */
const valueSinks = perFunction((f) => {
  const scalar = (t: Ty) => t.k === 'num' || t.k === 'int';
  const tracked = new Set(f.params.filter((p) => scalar(p.ty)).map((p) => p.name));
  forEachStmt(f.body, (s) => {
    if (s.k === 'decl' && scalar(s.ty)) tracked.add(s.name);
  });
  const uses: { v: string; to: Sink }[] = [];
  const walk = (e: Expr, to: Sink): void => {
    switch (e.k) {
      case 'var':
        uses.push({ v: e.name, to });
        break;
      case 'bin': {
        const inner: Sink = COMPARISONS.has(e.op) ? (to === 'size' ? 'size' : 'ctl') : to;
        walk(e.a, inner);
        walk(e.b, inner);
        break;
      }
      case 'un':
        walk(e.a, e.op === '!' ? 'ctl' : to);
        break;
      case 'cond':
        walk(e.c, to === 'size' ? 'size' : 'ctl');
        walk(e.a, to);
        walk(e.b, to);
        break;
      case 'call':
        e.args.forEach((a, i) => walk(a, { callee: e.fn, arg: i }));
        break;
      case 'intr':
        e.args.forEach((a) => walk(a, to));
        break;
      case 'idx':
        walk(e.obj, to);
        walk(e.index, 'size');
        break;
      case 'field':
        walk(e.obj, to);
        break;
      case 'len':
        walk(e.obj, 'ctl');
        break;
      case 'arrlit':
        e.elems.forEach((a) => walk(a, 'float'));
        break;
      case 'objlit':
        e.fields.forEach((a) => walk(a.value, 'float'));
        break;
      case 'alloc':
        walk(e.len, 'size');
        if (e.fill) walk(e.fill, 'float');
        break;
      case 'sub':
        walk(e.obj, to);
        walk(e.start, 'size');
        if (e.end) walk(e.end, 'size');
        break;
      default:
        break;
    }
  };
  const into = (name: string): Sink => (tracked.has(name) ? { local: name } : 'float');
  forEachStmt(f.body, (s) => {
    switch (s.k) {
      case 'decl':
        if (s.init) walk(s.init, into(s.name));
        break;
      case 'assign':
        if (s.target.k === 'var') walk(s.value, into(s.target.name));
        else {
          walk(s.target, 'ctl');
          walk(s.value, 'float');
        }
        break;
      case 'expr':
      case 'throw':
        walk(s.e, 'ctl');
        break;
      case 'if':
        walk(s.c, 'ctl');
        break;
      case 'for':
        if (s.cond) walk(s.cond, 'size');
        break;
      case 'while':
      case 'do':
        walk(s.cond, 'size');
        break;
      case 'switch':
        walk(s.disc, 'ctl');
        s.cases.forEach((c) => c.tests?.forEach((t) => walk(t, 'ctl')));
        break;
      case 'return':
        if (s.e) walk(s.e, 'float');
        break;
      default:
        break;
    }
  });
  return { tracked, uses };
});

/**
 * A function's ParamUse as last found, with the callees' results it was found from: it holds again while
 * each callee gives the same result object (a result is made for one function object, so the same object
 * means the same callee, itself found from the same callees). One inside a recursion read a fresh
 * placeholder, which no later call gives back: it is found again every time.
 */
const keptUse = new WeakMap<Func, { callees: Map<string, ParamUse>; result: ParamUse }>();

function paramUse(mod: Module, fn: string, memo: Map<string, ParamUse | null>): ParamUse {
  const none: ParamUse = { control: new Set(), sized: new Set() };
  const f = mod.funcs.get(fn);
  // recursion (null: in progress) and unknown callees: assume every parameter reaches a float
  if (!f || memo.get(fn) === null) return none;
  const known = memo.get(fn);
  if (known) return known;
  memo.set(fn, null);
  const kept = keptUse.get(f);
  if (kept && [...kept.callees].every(([c, r]) => paramUse(mod, c, memo) === r)) {
    memo.set(fn, kept.result);
    return kept.result;
  }
  const { tracked, uses } = valueSinks(f);
  const calleeResults = new Map<string, ParamUse>();
  const callee = (to: { callee: string; arg: number }) => {
    const g = mod.funcs.get(to.callee);
    const use = paramUse(mod, to.callee, memo);
    calleeResults.set(to.callee, use);
    return { use, name: g?.params[to.arg]?.name ?? '' };
  };
  const control = new Set(tracked);
  const reachesFloat = (to: Sink): boolean => {
    if (to === 'float') return true;
    if (to === 'ctl' || to === 'size') return false;
    if ('local' in to) return !control.has(to.local);
    const c = callee(to);
    return !c.use.control.has(c.name);
  };
  for (let changed = true; changed; ) {
    changed = false;
    for (const u of uses)
      if (control.has(u.v) && reachesFloat(u.to)) {
        control.delete(u.v);
        changed = true;
      }
  }
  const sized = new Set<string>();
  const isSize = (to: Sink): boolean => {
    if (to === 'size') return true;
    if (to === 'float' || to === 'ctl') return false;
    if ('local' in to) return sized.has(to.local);
    const c = callee(to);
    return c.use.sized.has(c.name);
  };
  for (let changed = true; changed; ) {
    changed = false;
    for (const u of uses)
      if (!sized.has(u.v) && isSize(u.to)) {
        sized.add(u.v);
        changed = true;
      }
  }
  const params = new Set(f.params.map((p) => p.name));
  const result: ParamUse = { control: new Set([...control].filter((n) => params.has(n))), sized: new Set([...sized].filter((n) => params.has(n))) };
  memo.set(fn, result);
  keptUse.set(f, { callees: calleeResults, result });
  return result;
}
