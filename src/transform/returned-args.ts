// Helpers that return an array or object they were given (gl-matrix's `out` style: write into `out`,
// then `return out`). Under the reference model the result is that very object, so it must share its
// shadow: `w = g(y, c)` is differentiated as `g(y, c); w = y`, an alias the analyses and every mode
// already follow. A helper that may return a parameter's object in any other way (on one branch only,
// through a local alias, a row of it) is refused at the call that binds its result.
import { type AliasClasses, aliasesOf, callSites, computeAliases, computeWrites, stmtCalls } from '../analysis/activity.js';
import { isFreshValue } from '../analysis/scratch-fields.js';
import type { Expr, Func, Module, Stmt, Ty } from '../ir/types.js';
import { bodiesOf, calleeText, declaredNames, forEachExpr, forEachStmt, isRef, mapBodies, rootVar, stmtExprs, tyOf, WRITING_INTRINSICS } from '../ir/util.js';
import { Names } from './linearize.js';
import { TransformError } from './tangent.js';

/**
 * What a function returns of its parameters: always parameter `j` itself, or always the object one of
 * its fields holds (`path`: a getter's `return this.w`, `return o.a`), or maybe some parameter's object.
 */
type Returned = { always: number; path?: { name: string; ty: Ty }[] } | 'maybe-param' | 'fresh';

/** `p.a.b` as the parameter p and the fields a, b (null for anything else) */
function fieldPath(e: Expr): { root: string; path: { name: string; ty: Ty }[] } | null {
  if (e.k === 'var') return { root: e.name, path: [] };
  if (e.k !== 'field') return null;
  const inner = fieldPath(e.obj);
  return inner && { root: inner.root, path: [...inner.path, { name: e.name, ty: e.ty }] };
}

function returnedOf(f: Func, known: Map<string, Returned>): Returned {
  if (!isRef(f.ret)) return 'fresh';
  // the result is a parameter's object itself, not a fresh one holding it
  const al = aliasesOf(f, false);
  const refParams = f.params.map((p, i) => ({ p, i })).filter(({ p }) => isRef(p.ty));
  const reassigned = new Set<string>();
  forEachStmt(f.body, (s) => {
    if (s.k === 'assign' && s.target.k === 'var') reassigned.add(s.target.name);
  });
  // the parameter (and field path) every plain `return p` / `return p.f` so far returns
  let param: { i: number; key: string; path: { name: string; ty: Ty }[] } | null = null;
  let fresh = false; // some return gives a fresh value
  let maybe = false; // some return may give a parameter's object some other way
  forEachStmt(f.body, (s) => {
    if (s.k !== 'return' || !s.e) return;
    const e = s.e;
    const fp = fieldPath(e);
    const direct = fp ? refParams.find(({ p }) => p.name === fp.root && !reassigned.has(p.name)) : undefined;
    if (direct && fp) {
      const key = `${direct.i}.${fp.path.map((x) => x.name).join('.')}`;
      if (param === null) param = { i: direct.i, key, path: fp.path };
      else if (param.key !== key) maybe = true;
    } else if (mayBeParamObject(e, f, al, known)) maybe = true;
    else fresh = true;
  });
  if (maybe || (param !== null && fresh)) return 'maybe-param';
  if (param !== null) {
    const { i, path } = param as { i: number; path: { name: string; ty: Ty }[] };
    return path.length ? { always: i, path } : { always: i };
  }
  return 'fresh';
}

/** Could `e`, a returned reference, be (part of) an object a parameter holds? */
function mayBeParamObject(e: Expr, f: Func, al: AliasClasses, known: Map<string, Returned>): boolean {
  if (e.k === 'cond') return mayBeParamObject(e.a, f, al, known) || mayBeParamObject(e.b, f, al, known);
  if (e.k === 'call') return known.get(e.fn) !== undefined && known.get(e.fn) !== 'fresh';
  const r = rootVar(e);
  if (!r) return false;
  return f.params.some((p) => isRef(p.ty) && al.rep(p.name) === al.rep(r));
}

/**
 * `w = g(y, …)` with g returning its parameter: the call as a statement, then `w = y`. A call that
 * may or may not return a parameter's object is kept as it is where nothing is written afterwards into
 * its result or its arguments (`unshared`): then which object the result is makes no difference.
 */
function rewriteCalls(body: Stmt[], known: Map<string, Returned>, names: Names, unshared: ReadonlySet<Stmt> = new Set()): Stmt[] {
  const out: Stmt[] = [];
  for (const s0 of body) {
    if (unshared.has(s0)) {
      out.push(s0);
      continue;
    }
    const s = mapBodies(s0, (list) => rewriteCalls(list, known, names, unshared));
    const value = s.k === 'decl' ? s.init : s.k === 'assign' ? s.value : s.k === 'return' ? s.e : null;
    const kind = value?.k === 'call' ? known.get(value.fn) : undefined;
    if (!value || value.k !== 'call' || kind === undefined || kind === 'fresh') {
      out.push(s);
      continue;
    }
    let arg = typeof kind === 'object' ? value.args[kind.always] : undefined;
    let call = value;
    if (arg && !simple(arg)) {
      // a value made for the call (`g([0, 0], v)`, `g(a.slice())`): bound to a local first, so that
      // the result can name it
      const name = names.fresh(`${value.fn}Arg`);
      out.push({ k: 'decl', name, ty: tyOf(arg), init: arg, konst: true, loc: s.loc });
      const bound: Expr = { k: 'var', name, ty: tyOf(arg) };
      call = { ...value, args: value.args.map((a, j) => (j === (kind as { always: number }).always ? bound : a)) };
      arg = bound;
    }
    if (!arg) {
      const shown = calleeText(value);
      throw new TransformError(
        `${shown} may return an array or object it was given, and this function stores into its result or that object afterwards: tsad cannot tell which object the stores reach (copy the result before storing into it: \`.slice()\`)`,
        value.loc ? value : s,
      );
    }
    out.push({ k: 'expr', e: call, loc: s.loc, comments: s.comments });
    // (a field path of the argument, read after the call: the object the callee returned)
    const result = ((kind as { path?: { name: string; ty: Ty }[] }).path ?? []).reduce<Expr>((o, fl) => ({ k: 'field', obj: o, name: fl.name, ty: fl.ty }), arg);
    if (s.k === 'decl') out.push({ ...s, init: result, comments: undefined });
    else if (s.k === 'assign') out.push({ ...s, value: result, comments: undefined });
    else if (s.k === 'return') out.push({ ...s, e: result, comments: undefined });
  }
  return out;
}

/** locals only ever holding an array or object this function made (an allocation, a literal, a copy) */
function freshLocals(f: Func): Set<string> {
  const made = new Set<string>();
  const other = new Set<string>();
  forEachStmt(f.body, (s) => {
    if (s.k === 'decl') (s.init && isFreshValue(s.init) ? made : other).add(s.name);
    if (s.k === 'assign' && s.target.k === 'var') other.add(s.target.name);
  });
  for (const n of other) made.delete(n);
  return made;
}

/** an index or field path of variables and constants: the same place before and after the call */
function simple(e: Expr): boolean {
  switch (e.k) {
    case 'var':
    case 'num':
      return true;
    case 'idx':
      return simple(e.obj) && simple(e.index);
    case 'field':
      return simple(e.obj);
    default:
      return false;
  }
}

/** The module as the derivatives see it: results that are a parameter's object bound as aliases. */
export function bindReturnedArguments(mod: Module): Module {
  const known = new Map<string, Returned>();
  // a function returning what a callee returned of its parameter returns it too: to a fixed point
  for (let round = 0; round <= mod.order.length; round++) {
    let changed = false;
    for (const n of mod.order) {
      const f = mod.funcs.get(n)!;
      const r = isRef(f.ret) ? returnedOf(withCallsRewritten(f, known), known) : 'fresh';
      if (JSON.stringify(r) !== JSON.stringify(known.get(n))) {
        known.set(n, r);
        changed = true;
      }
    }
    if (!changed) break;
  }
  refuseFloatWritesThroughHeldArguments(mod, known);
  if (![...known.values()].some((r) => r !== 'fresh')) return mod;
  const writes = computeWrites(mod);
  const funcs = new Map<string, Func>();
  for (const [n, f] of mod.funcs) funcs.set(n, { ...f, body: rewriteCalls(f.body, known, new Names(declaredNames(f)), unsharedCalls(f, known, writes)) });
  return { ...mod, funcs };
}

/**
 * The statements `w = g(…)` / `const w = g(…)` of `f` whose g may return a parameter's object, after
 * which nothing stores into w's object or an argument's (elements, fields, rows, pushes, a callee that
 * writes them): the result may be taken as a value of its own.
 */
function unsharedCalls(f: Func, known: Map<string, Returned>, writes: Map<string, Set<number>>): Set<Stmt> {
  const out = new Set<Stmt>();
  // a reference put into a slot of an array this function made (`pts[k] = r`, `pts.push(r)`, as
  // Array.from and map write) changes that array only, never the result's object or an argument's
  const made = freshLocals(f);
  const intoMade = (target: Expr) => target.k === 'idx' && target.obj.k === 'var' && made.has(target.obj.name) && isRef(tyOf(target));
  // (`pts[k] = g(…)`: the result reached through pts afterwards)
  const slotCall = (s: Stmt) => (s.k === 'assign' && intoMade(s.target) && s.value.k === 'call' ? { name: (s.target as { obj: { name: string } }).obj.name, call: s.value } : null);
  const maybe = (s: Stmt) => {
    const b = boundCall(s) ?? slotCall(s);
    return b && known.get(b.call.fn) === 'maybe-param' ? b : null;
  };
  let any = false;
  forEachStmt(f.body, (s) => void (maybe(s) && (any = true)));
  if (!any) return out;
  const al = aliasesOf(f, true);
  const stores: { s: Stmt; root: string }[] = [];
  forEachStmt(f.body, (s) => {
    if (s.k === 'assign' && s.target.k !== 'var' && !intoMade(s.target)) {
      const r = rootVar(s.target);
      if (r) stores.push({ s, root: r });
    }
    for (const e of stmtExprs(s))
      forEachExpr(e, (x) => {
        if (x.k === 'intr' && WRITING_INTRINSICS.has(x.fn) && x.args[0] && !(x.fn === 'push' && x.args[0].k === 'var' && made.has(x.args[0].name))) {
          const r = rootVar(x.args[0]);
          if (r) stores.push({ s, root: r });
        }
        if (x.k === 'call')
          x.args.forEach((a, j) => {
            const r = rootVar(a);
            if (r && isRef(tyOf(a)) && writes.get(x.fn)?.has(j)) stores.push({ s, root: r });
          });
      });
  });
  const at = positions(f.body);
  const declOf = new Map<string, Stmt>();
  forEachStmt(f.body, (s) => void (s.k === 'decl' && declOf.set(s.name, s)));
  forEachStmt(f.body, (s) => {
    const b = maybe(s);
    if (!b) return;
    const classes = new Set([al.rep(b.name), ...b.call.args.filter((a) => isRef(tyOf(a))).flatMap((a) => (rootVar(a) ? [al.rep(rootVar(a)!)] : []))]);
    if (!stores.some((w) => classes.has(al.rep(w.root)) && mayRunAfter(at, w.s, s, declOf.get(w.root)))) out.add(s);
  });
  return out;
}

/** the rewrite while the summaries are still growing: refusals wait for the final round */
/** `f` with its calls rewritten as rewriteCalls does, leniently; `f` itself where no callee may return a parameter's object */
function withCallsRewritten(f: Func, known: Map<string, Returned>): Func {
  const rewritten = (c: Extract<Expr, { k: 'call' }>) => (known.get(c.fn) ?? 'fresh') !== 'fresh';
  if (!callSites(f).some((site) => site.calls.some(rewritten))) return f;
  return { ...f, body: rewriteCallsLenient(f.body, known, new Names(declaredNames(f))) };
}

function rewriteCallsLenient(body: Stmt[], known: Map<string, Returned>, names: Names): Stmt[] {
  try {
    return rewriteCalls(body, known, names);
  } catch (e) {
    if (e instanceof TransformError) return body;
    throw e;
  }
}

/** the roots of the references a returned value is made of (`[a, [1, 2]]`: a) */
function returnedRoots(e: Expr, out: string[]): string[] {
  if (e.k === 'arrlit') e.elems.forEach((x) => returnedRoots(x, out));
  else if (e.k === 'objlit') e.fields.forEach((fl) => returnedRoots(fl.value, out));
  else if (e.k === 'cond') [e.a, e.b].forEach((x) => returnedRoots(x, out));
  else if (isRef(tyOf(e))) {
    const r = rootVar(e);
    if (r) out.push(r);
  }
  return out;
}

/** Functions whose fresh result may hold a reference parameter's object (`return [a, [1, 2]]`, an instance with an array field). */
function resultsHoldingParameters(mod: Module, known: Map<string, Returned>): Set<string> {
  const out = new Set<string>();
  for (const [n, f] of mod.funcs) {
    if (!isRef(f.ret) || known.get(n) !== 'fresh') continue;
    const al = aliasesOf(f, true);
    const params = new Set(f.params.filter((p) => isRef(p.ty)).map((p) => al.rep(p.name)));
    forEachStmt(f.body, (s) => {
      if (s.k === 'return' && s.e && returnedRoots(s.e, []).some((r) => params.has(al.rep(r)))) out.add(n);
    });
  }
  return out;
}

/** a float stored into an element or a field (not a reference: a row store changes no shared float) */
function floatStoreRoot(s: Stmt): string | null {
  return s.k === 'assign' && s.target.k !== 'var' && !isRef(s.target.ty) ? rootVar(s.target) : null;
}

/** Parameters (by index) a function stores floats into, directly or through a local alias. */
export function floatWrittenParams(f: Func, owned: ReadonlySet<string> = new Set()): Set<number> {
  const al = aliasesOf(f, true);
  // locals only ever bound to an owned field's value (`const diff = this.centered`) are that scratch too
  const scratch = new Set<string>(), bound = new Set<string>();
  forEachStmt(f.body, (s) => {
    const v = s.k === 'decl' ? s.init : s.k === 'assign' && s.target.k === 'var' ? s.value : null;
    const name = s.k === 'decl' ? s.name : s.k === 'assign' && s.target.k === 'var' ? s.target.name : null;
    if (!name || !v || !isRef(tyOf(v))) return;
    (throughOwnedField(v, owned) ? scratch : bound).add(name);
  });
  const out = new Set<number>();
  forEachStmt(f.body, (s) => {
    const r = floatStoreRoot(s);
    if (!r || throughOwnedField((s as Extract<Stmt, { k: 'assign' }>).target, owned) || (scratch.has(r) && !bound.has(r))) return;
    f.params.forEach((p, j) => isRef(p.ty) && al.rep(p.name) === al.rep(r) && out.add(j));
  });
  return out;
}


/**
 * Fields (`Type.field`) that only ever hold arrays or objects made for them (`this.centered = new
 * Float64Array(d)`): scratch an instance owns. A float stored through one reaches nothing the instance
 * was given, so it does not link what a caller passed in.
 */
export function ownedFields(mod: Module): Set<string> {
  const fresh = new Set<string>(), other = new Set<string>();
  const note = (obj: Ty, name: string, value: Expr) => {
    if (obj.k !== 'obj' || !obj.name) return;
    const key = `${obj.name}.${name}`;
    (isFreshValue(value) ? fresh : other).add(key);
  };
  for (const f of mod.funcs.values())
    forEachStmt(f.body, (s) => {
      if (s.k === 'assign' && s.target.k === 'field' && isRef(s.target.ty)) note(tyOf(s.target.obj), s.target.name, s.value);
      for (const e of stmtExprs(s))
        forEachExpr(e, (x) => {
          if (x.k === 'objlit') for (const fl of x.fields) if (isRef(tyOf(fl.value))) note(x.ty, fl.name, fl.value);
        });
    });
  return new Set([...fresh].filter((k) => !other.has(k)));
}

/** does the stored-into path go through an owned field (`self.centered[j] = …`)? */
function throughOwnedField(target: Expr, owned: ReadonlySet<string>): boolean {
  for (let e = target; e.k === 'idx' || e.k === 'field'; e = e.obj) {
    if (e.k !== 'field') continue;
    const t = tyOf(e.obj);
    if (t.k === 'obj' && t.name && owned.has(`${t.name}.${e.name}`)) return true;
  }
  return false;
}

/**
 * Parameters (by index) each function stores floats into, directly or through the functions it passes
 * them to (`pull(k)` calling `this.a.push(f)`, which writes `a.f`): a write two calls down is a write.
 */
export function floatWrittenParamsOf(mod: Module): Map<string, Set<number>> {
  const owned = ownedFields(mod);
  const out = new Map([...mod.funcs].map(([n, f]) => [n, floatWrittenParams(f, owned)]));
  const aliases = new Map([...mod.funcs].map(([n, f]) => [n, aliasesOf(f, true)]));
  for (let changed = true; changed; ) {
    changed = false;
    for (const [n, f] of mod.funcs) {
      const al = aliases.get(n)!;
      const mine = out.get(n)!;
      forEachStmt(f.body, (s) => {
        for (const c of stmtCalls(s))
          c.args.forEach((a, j) => {
            const r = rootVar(a);
            if (!r || !out.get(c.fn)?.has(j)) return;
            f.params.forEach((p, k) => {
              if (isRef(p.ty) && !mine.has(k) && al.rep(p.name) === al.rep(r)) {
                mine.add(k);
                changed = true;
              }
            });
          });
      });
    }
  }
  return out;
}

/**
 * A helper's fresh result that holds an object it was given shares that object with the caller, but
 * the calling convention gives the result a shadow of its own: a float written through one of them
 * afterwards would be missed by the other's derivative. Until results carry their shadows, such a
 * write in the caller is refused at the call.
 */
function refuseFloatWritesThroughHeldArguments(mod: Module, known: Map<string, Returned>): void {
  const holding = resultsHoldingParameters(mod, known);
  if (!holding.size) return;
  const writes = floatWrittenParamsOf(mod);
  for (const f of mod.funcs.values()) {
    const al = computeAliases(f, true);
    // each side apart, before the call joins them: which names reach the result, which the arguments
    const apart = aliasesOf(f, true);
    const mentions = new Map<Stmt, Set<string>>();
    forEachStmt(f.body, (t) => {
      const names = new Set<string>();
      for (const e of stmtExprs(t)) forEachExpr(e, (x) => void (x.k === 'var' && names.add(apart.rep(x.name))));
      mentions.set(t, names);
    });
    // the result and the objects it was given are reached through each other; so are a result that is
    // (part of) an argument's object and that argument (`const a = box.get()` returning `this.w`)
    forEachStmt(f.body, (s) => {
      const b = boundCall(s);
      if (!b) return;
      const r = known.get(b.call.fn);
      const joined = holding.has(b.call.fn) || r === 'maybe-param' ? b.call.args : r && r !== 'fresh' ? [b.call.args[r.always]] : [];
      for (const a of joined) if (a && isRef(tyOf(a)) && rootVar(a)) al.union(b.name, rootVar(a)!);
    });
    // the float stores of each object (by alias class), where they stand
    const written = new Map<string, { s: Stmt; root: string }[]>();
    const note = (root: string, s: Stmt) => written.set(al.rep(root), [...(written.get(al.rep(root)) ?? []), { s, root }]);
    forEachStmt(f.body, (s) => {
      const r = floatStoreRoot(s);
      if (r) note(r, s);
      for (const c of stmtCalls(s))
        c.args.forEach((a, j) => {
          const ar = rootVar(a);
          if (ar && writes.get(c.fn)?.has(j)) note(ar, s);
        });
    });
    const at = positions(f.body);
    const declOf = new Map<string, Stmt>();
    forEachStmt(f.body, (s) => void (s.k === 'decl' && declOf.set(s.name, s)));
    forEachStmt(f.body, (s) => {
      const b = boundCall(s);
      // (a store before the call, `d[0] = …; new M(d)`, is over before the two share the object)
      if (!b || !holding.has(b.call.fn) || !(written.get(al.rep(b.name)) ?? []).some((w) => mayRunAfter(at, w.s, s, declOf.get(w.root)))) return;
      // (used afterwards through one side only — the result, or what it was given — the two shadows
      // never disagree: a fresh array handed to a constructor, `new Poly([0, 0])`, then used through p.c)
      const usedAfter = (root: string) => [...mentions].some(([t, names]) => t !== s && names.has(apart.rep(root)) && mayRunAfter(at, t, s, declOf.get(root)));
      const argRoots = b.call.args.filter((a) => isRef(tyOf(a))).flatMap((a) => (rootVar(a) ? [rootVar(a)!] : []));
      if (!usedAfter(b.name) || !argRoots.some(usedAfter)) return;
      const call = b.call;
      const message =
        call.origin === 'class.new'
          ? `the instance \`new ${call.fn.replace(/_new$/, '')}(…)\` keeps an array or object it was given, and this function writes numbers into it afterwards: tsad cannot yet follow the objects they share (keep a copy in the instance, \`this.d = d.slice()\`, or write into a copy here)`
          : `'${call.fn}' returns an array or object that holds one it was given, and this function writes numbers into them afterwards: tsad cannot yet follow the objects they share (return a copy from '${call.fn}', \`a.slice()\`, or write into a copy here)`;
      throw new TransformError(message, call.loc ? call : s);
    });
  }
}

/** each statement's place in the order of the text, and the loops around it */
export function positions(body: Stmt[]): Map<Stmt, { order: number; loops: Stmt[] }> {
  const out = new Map<Stmt, { order: number; loops: Stmt[] }>();
  const walk = (list: Stmt[], loops: Stmt[]) => {
    for (const s of list) {
      out.set(s, { order: out.size, loops });
      const inner = s.k === 'for' || s.k === 'while' || s.k === 'do' ? [...loops, s] : loops;
      // (a store in a `for` header's update is not placed: it counts as after everything)
      if (s.k === 'for') walk(s.init, loops);
      for (const b of bodiesOf(s)) walk(b, inner);
    }
  };
  walk(body, []);
  return out;
}

/**
 * May the store `w` reach the object after `s`: later in the text, or in a loop around both — unless
 * the object is made anew in each pass of those loops (`decl`, the written variable's declaration, is
 * inside them all), when a pass's store comes before that pass's `s` only.
 */
export function mayRunAfter(at: Map<Stmt, { order: number; loops: Stmt[] }>, w: Stmt, s: Stmt, decl: Stmt | undefined): boolean {
  const pw = at.get(w), ps = at.get(s);
  if (!pw || !ps) return true;
  if (pw.order > ps.order) return true;
  const shared = pw.loops.filter((l) => ps.loops.includes(l));
  const pd = decl && at.get(decl);
  return shared.length > 0 && !(pd && shared.every((l) => pd.loops.includes(l)));
}

/** `x = g(…)` or `const x = g(…)`: the variable and the call */
export function boundCall(s: Stmt): { name: string; call: Extract<Expr, { k: 'call' }> } | null {
  const b = s.k === 'decl' ? { name: s.name, value: s.init } : s.k === 'assign' && s.target.k === 'var' ? { name: s.target.name, value: s.value } : null;
  return b?.value?.k === 'call' ? { name: b.name, call: b.value } : null;
}
