// Calls that link objects the caller sees apart. A helper that stores an array or object it was given
// into another (`o.data = v`, `ps.push(p)`, `return new Layer(w)`), or that puts one object in two
// places (`return { a: buf, b: buf }`, `o.p = a; o.q = a`), leaves the caller holding two names for one
// object without the caller's own analyses seeing it: they follow references within a function, not
// what a callee did with them. Numbers written afterwards through one name are then missed through the
// other. Until callee summaries carry the links, such a call is refused where it stands, when numbers
// are written afterwards into what it linked and more than one of the linked names is used afterwards
// (or the callee put one object in two places, where one name suffices).
import { aliasesOf, callSites, computeAliases, stmtCalls } from '../analysis/activity.js';
import { perFunction } from '../ir/per-function.js';
import type { Expr, Func, Module, Stmt } from '../ir/types.js';
import { bodiesOf, calleeText, exprEq, forEachExpr, forEachStmt, isRef, rootVar, stmtExprs, tyOf, WRITING_INTRINSICS } from '../ir/util.js';
import { boundCall, floatWrittenParamsOf, mayRunAfter, positions } from './returned-args.js';
import { TransformError } from './tangent.js';

/** what a function does with references: which parameters' objects it stores elsewhere, and whether it places one object twice */
interface Linking {
  params: Set<number>;
  twice: boolean;
  /** what the links reach: parameters by position, and 'result' (the caller's names for these are the sides of a call) */
  sides: Set<number | 'result'>;
}

/** an object put in a place: stored in an element or field, pushed, held by a literal, or handed to a callee that keeps it */
interface Placement {
  root: string;
  s: Stmt;
  /** the root of the object it is stored into (RESULT: the function's result; null: not known, a callee's) */
  into: string | null;
  /** the place it is taken from, below its root (`m[0]`: [0]) */
  path: Path;
  /** the variables that index that place directly (`m[k]`: k) */
  counters: string[];
}

/** `reach`: the functions the head reaches (a call elsewhere in the module is none of this compilation's business) */
export function refuseLinkingCalls(mod: Module, reach: ReadonlySet<string>): void {
  const summaries = linkingSummaries(mod);
  if (![...summaries.values()].some((l) => l.params.size || l.twice)) return;
  // (the parameters each function stores numbers into itself, as returned-args.ts counts them: a write
  // two calls down, through a method of a held object, is not seen — the same limit as there)
  const writes = floatWrittenParamsOf(mod);
  const takesTape = (fn: string) => !!mod.funcs.get(fn)?.params.some((p) => p.ty.k === 'tape');
  for (const n of mod.order) if (reach.has(n)) checkCalls(mod.funcs.get(n)!, summaries, writes, takesTape);
}

/** every function's Linking, to a fixed point over the calls (a helper calling one that links, links) */
function linkingSummaries(mod: Module): Map<string, Linking> {
  const out = new Map<string, Linking>([...mod.funcs.keys()].map((n) => [n, { params: new Set<number>(), twice: false, sides: new Set<number | 'result'>() }]));
  for (let round = 0; round <= mod.order.length; round++) {
    let changed = false;
    for (const [n, f] of mod.funcs) {
      const next = linkingOf(f, out);
      const old = out.get(n)!;
      if (next.twice !== old.twice || next.params.size !== old.params.size || next.sides.size !== old.sides.size) {
        out.set(n, next);
        changed = true;
      }
    }
    if (!changed) break;
  }
  return out;
}

function linkingOf(f: Func, known: Map<string, Linking>): Linking {
  // (most functions place nothing and call nothing that links: every round of linkingSummaries asks)
  const linkingCallee = (c: Extract<Expr, { k: 'call' }>) => {
    const l = known.get(c.fn);
    return !!l && (l.params.size > 0 || l.twice);
  };
  if (!mayPlace(f) && !callSites(f).some((site) => site.calls.some(linkingCallee))) return { params: new Set(), twice: false, sides: new Set() };
  const al = aliasesOf(f, false);
  // only what a caller can reach counts: the parameters' objects and the result, and what they hold
  const held = aliasesOf(f, true);
  const exposed = new Set(f.params.filter((p) => isRef(p.ty)).map((p) => held.rep(p.name)));
  forEachStmt(f.body, (s) => {
    if (s.k === 'return' && s.e) for (const r of refRoots(s.e)) exposed.add(held.rep(r));
  });
  const placements = placementsIn(f, known).filter((pl) => pl.into === RESULT || pl.into === null || exposed.has(held.rep(pl.into)));
  const refParams = f.params.map((p, j) => ({ p, j })).filter(({ p }) => isRef(p.ty));
  const params = new Set<number>();
  const at = positions(f.body);
  const declOf = new Map<string, Stmt>();
  forEachStmt(f.body, (s) => void (s.k === 'decl' && declOf.set(s.name, s)));
  let twice = false;
  const sides = new Set<number | 'result'>();
  const returned = new Set<string>();
  forEachStmt(f.body, (s) => {
    if (s.k === 'return' && s.e) for (const r of refRoots(s.e)) returned.add(held.rep(r));
  });
  const involve = (name: string | null) => {
    if (name === null || name === RESULT) return void sides.add('result');
    const r = held.rep(name);
    for (const { p, j } of refParams) if (held.rep(p.name) === r) sides.add(j);
    if (returned.has(r)) sides.add('result');
  };
  placements.forEach((pl, k) => {
    involve(pl.root);
    involve(pl.into);
    const rep = al.rep(pl.root);
    for (const { p, j } of refParams) if (al.rep(p.name) === rep) params.add(j);
    // (one object placed twice: the same place, or places that may overlap, `m` and `m[0]`, `m[i]` and `m[j]`)
    if (placements.slice(0, k).some((o) => al.rep(o.root) === rep && mayOverlap(o.path, pl.path))) twice = true;
    // (a part of an object stored into that object, `o.b = o.a`: one object in two of its places)
    if (pl.into && pl.into !== RESULT && al.rep(pl.into) === rep) twice = true;
    // (a placement in a loop of an object made outside it places that object once per pass, unless it
    // is a row the loop's counter picks, `push(new G(mu[k]))`: another row each pass)
    const loops = at.get(pl.s)?.loops ?? [];
    const decl = declOf.get(pl.root);
    const outside = loops.filter((l) => !(decl && at.get(decl)?.loops.includes(l)));
    if (outside.some((l) => !indexedByCounter(pl.counters, l))) twice = true;
  });
  forEachStmt(f.body, (s) => {
    for (const c of stmtCalls(s)) {
      const l = known.get(c.fn);
      if (!l?.twice) continue;
      twice = true;
      // (what the callee linked, as this function's names for it)
      c.args.forEach((a, j) => l.sides.has(j) && rootVar(a) && involve(rootVar(a)));
      const b = boundCall(s);
      if (l.sides.has('result') && b && b.call === c) involve(b.name);
    }
  });
  return { params, twice, sides };
}

/** the steps from a variable to the placed object: field names, literal indices, or null for a computed index */
type Path = (string | number | null)[];

function pathOf(e: Expr): Path {
  if (e.k === 'field') return [...pathOf(e.obj), e.name];
  if (e.k === 'idx') return [...pathOf(e.obj), e.index.k === 'num' ? e.index.v : null];
  if (e.k === 'sub') return [...pathOf(e.obj), null];
  return [];
}

/** may two places under one variable hold one object? Not when they part at two different fields or literal indices */
function mayOverlap(a: Path, b: Path): boolean {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] === null || b[i] === null) return true;
    if (a[i] !== b[i]) return false;
  }
  return true;
}

/** is the placed object indexed by the counter of the `for` loop `l` (another element each pass)? */
function indexedByCounter(counters: readonly string[], l: Stmt): boolean {
  const counter = l.k === 'for' && l.init[0]?.k === 'decl' ? l.init[0].name : null;
  return !!counter && counters.includes(counter);
}

/** the variables whose objects a returned value is, or holds (`[a, { b }]`: a, b) */
function refRoots(e: Expr): string[] {
  if (e.k === 'arrlit') return e.elems.flatMap(refRoots);
  if (e.k === 'objlit') return e.fields.flatMap((fl) => refRoots(fl.value));
  if (e.k === 'cond') return [...refRoots(e.a), ...refRoots(e.b)];
  const r = isRef(tyOf(e)) ? rootVar(e) : null;
  return r ? [r] : [];
}

/** the destination of a value made in a return statement */
const RESULT = '<result>';

/**
 * Reference stores that move a reference rather than copy it: its old slot is overwritten after it is
 * read (a row swap, `t = A[i]; A[i] = A[j]; A[j] = t`, leaves every row in one place).
 */
function moves(body: Stmt[]): Set<Stmt> {
  const out = new Set<Stmt>();
  const isSlot = (e: Expr) => e.k === 'idx' || e.k === 'field';
  const overwrites = (list: Stmt[], from: number, to: number, slot: Expr) => list.slice(from, to).some((x) => x.k === 'assign' && exprEq(x.target, slot));
  const walk = (list: Stmt[]) => {
    list.forEach((s, k) => {
      for (const b of bodiesOf(s)) walk(b);
      if (s.k !== 'assign' || s.target.k === 'var' || !isRef(s.target.ty)) return;
      const v = s.value;
      // `A[i] = A[j]` with A[j] assigned afterwards
      if (isSlot(v) && overwrites(list, k + 1, list.length, v)) out.add(s);
      // `A[j] = t` with `const t = A[i]` before, A[i] assigned between
      if (v.k === 'var') {
        const d = list.findIndex((x, i) => i < k && x.k === 'decl' && x.name === v.name);
        const src = d >= 0 ? (list[d] as Extract<Stmt, { k: 'decl' }>).init : null;
        if (src && isSlot(src) && overwrites(list, d + 1, k, src)) out.add(s);
      }
    });
  };
  walk(body);
  return out;
}

/** the variables that index the path to `e` directly (`m[k]`, `m[k][0]`: k) */
function indexVars(e: Expr): string[] {
  if (e.k === 'idx') return [...indexVars(e.obj), ...(e.index.k === 'var' ? [e.index.name] : [])];
  if (e.k === 'field' || e.k === 'sub') return indexVars(e.obj);
  return [];
}

/**
 * may `f` place an object by itself (a reference stored into an element or a field, an array or object
 * literal, a push)? When not, placementsIn finds only what its callees place.
 */
const mayPlace = perFunction((f) => {
  let found = false;
  forEachStmt(f.body, (s) => {
    if (s.k === 'assign' && s.target.k !== 'var' && isRef(s.target.ty)) found = true;
    for (const e of stmtExprs(s))
      forEachExpr(e, (x) => {
        if (x.k === 'arrlit' || x.k === 'objlit' || (x.k === 'intr' && x.fn === 'push')) found = true;
      });
  });
  return found;
});

function placementsIn(f: Func, known: Map<string, Linking>): Placement[] {
  const out: Placement[] = [];
  const moved = moves(f.body);
  const place = (e: Expr, s: Stmt, into: string | null) => {
    if (e.k === 'cond') return [e.a, e.b].forEach((x) => place(x, s, into));
    if (e.k === 'arrlit' || e.k === 'objlit') return;
    const r = isRef(tyOf(e)) && (e.k === 'var' || e.k === 'idx' || e.k === 'field' || e.k === 'sub') ? rootVar(e) : null;
    if (r) out.push({ root: r, s, into, path: pathOf(e), counters: indexVars(e) });
  };
  forEachStmt(f.body, (s) => {
    // a reference stored into an element or a field
    if (s.k === 'assign' && s.target.k !== 'var' && isRef(s.target.ty) && !moved.has(s)) place(s.value, s, rootVar(s.target));
    // where a literal made here goes: the variable it initialises, the result, the object it is stored into
    const dest = s.k === 'return' ? RESULT : s.k === 'decl' ? s.name : s.k === 'assign' ? rootVar(s.target) : null;
    for (const e of stmtExprs(s))
      forEachExpr(e, (x) => {
        if (x.k === 'arrlit') x.elems.forEach((y) => place(y, s, dest));
        else if (x.k === 'objlit') x.fields.forEach((fl) => place(fl.value, s, dest));
        else if (x.k === 'intr' && x.fn === 'push') x.args.slice(1).forEach((y) => place(y, s, rootVar(x.args[0])));
        else if (x.k === 'call') known.get(x.fn)?.params.forEach((j) => x.args[j] && place(x.args[j], s, null));
      });
  });
  return out;
}

/** the roots of what a statement writes numbers into: element and field stores, writing intrinsics, callees that write a parameter */
function writtenRoots(s: Stmt, writes: Map<string, Set<number>>): string[] {
  const out: string[] = [];
  if (s.k === 'assign' && s.target.k !== 'var') {
    const r = rootVar(s.target);
    if (r) out.push(r);
  }
  for (const e of stmtExprs(s))
    forEachExpr(e, (x) => {
      if (x.k === 'intr' && WRITING_INTRINSICS.has(x.fn) && x.args[0]) {
        const r = rootVar(x.args[0]);
        if (r) out.push(r);
      }
      if (x.k === 'call')
        x.args.forEach((a, j) => {
          const r = rootVar(a);
          if (r && isRef(tyOf(a)) && writes.get(x.fn)?.has(j)) out.push(r);
        });
    });
  return out;
}

/** the variables a statement reads or passes on (an assignment's target variable is not a use of its old object) */
function usedNames(s: Stmt): Set<string> {
  const out = new Set<string>();
  for (const e of stmtExprs(s)) {
    if (s.k === 'assign' && s.target.k === 'var' && e === s.target) continue;
    forEachExpr(e, (x) => void (x.k === 'var' && out.add(x.name)));
  }
  return out;
}

function checkCalls(f: Func, summaries: Map<string, Linking>, writes: Map<string, Set<number>>, takesTape: (fn: string) => boolean): void {
  const calls: { s: Stmt; c: Extract<Expr, { k: 'call' }>; l: Linking }[] = [];
  forEachStmt(f.body, (s) => {
    for (const c of stmtCalls(s)) {
      const l = summaries.get(c.fn);
      // (a callee taking a tape is tsad's own sweep, differentiated again for second derivatives: what it
      // links it links on the shadows too, by construction — as call-aliasing.ts treats such code)
      if (l && (l.params.size || l.twice) && !takesTape(c.fn)) calls.push({ s, c, l });
    }
  });
  if (!calls.length) return;
  const at = positions(f.body);
  const declOf = new Map<string, Stmt>();
  forEachStmt(f.body, (s) => void (s.k === 'decl' && declOf.set(s.name, s)));
  const stmts: Stmt[] = [];
  forEachStmt(f.body, (s) => void stmts.push(s));
  for (const { s, c, l } of calls) {
    const bound = boundCall(s);
    // (the caller's names for what the callee linked: those arguments, the bound result)
    const sides = [...new Set([...c.args.flatMap((a, j) => (l.sides.has(j) && isRef(tyOf(a)) && rootVar(a) ? [rootVar(a)!] : [])), ...(l.sides.has('result') && bound && bound.call === c && isRef(tyOf(c)) ? [bound.name] : [])])];
    if (!sides.length) continue;
    // what the call joins: every side, and what each side's class holds
    const al = computeAliases(f, true);
    for (const x of sides) al.union(sides[0], x);
    const joined = al.rep(sides[0]);
    const after = (t: Stmt, root: string) => t !== s && mayRunAfter(at, t, s, declOf.get(root));
    const writtenAfter = stmts.some((t) => writtenRoots(t, writes).some((r) => al.rep(r) === joined && after(t, r)));
    if (!writtenAfter) continue;
    if (!l.twice) {
      const apart = aliasesOf(f, true);
      const usedAfter = (root: string) => stmts.some((t) => after(t, root) && [...usedNames(t)].some((u) => apart.rep(u) === apart.rep(root)));
      if (sides.filter(usedAfter).length < 2) continue;
    }
    const shown = calleeText(c);
    const what = l.twice ? 'puts one array or object in two places' : 'keeps an array or object it was given inside another (a field, an element, a pushed item, its result)';
    throw new TransformError(
      `${shown} ${what}, and this function writes numbers into them afterwards: tsad cannot yet follow objects shared across a call`,
      c.loc ? c : s,
    );
  }
}

