// Loop-invariant loads, IR → IR on generated code: an array element a loop reads but provably never
// writes is loaded once before the loop. JavaScript engines cannot do this themselves when the loop
// writes other arrays (they might be the same memory); tsad can, because the arrays the loop writes are
// fresh allocations of this function, distinct from every other array.
import type { Expr, Func, Stmt } from '../ir/types.js';
import { escapingArrays } from '../analysis/escaping.js';
import { NUM, bodiesOf, declaredNames, isRef, exprEq, forEachExpr, forEachOwnExpr, forEachStmt, mapBodies, mapExpr, mapStmts, stmtExprs, tyOf } from '../ir/util.js';
import { Names } from './linearize.js';
import { TAPE_ALLOCATIONS } from './adjoint/reused-shadows.js';

/**
 * `alsoFresh`: arrays known distinct from every other one though not allocated here (a scratch field's
 * alias in a method's forward sweep: see analysis/scratch-fields.ts)
 */
export function hoistInvariantLoads(f: Func, alsoFresh: Iterable<string> = []): Func {
  const fresh = freshArrays(f);
  for (const n of alsoFresh) fresh.add(n);
  const names = new Names(declaredNames(f));
  const body = inBody(f.body, fresh, names, new Set(f.params.map((p) => p.name)), false);
  return { ...f, body: propagateCopies(dropWriteOnlyArrays(body, fresh)) };
}

/**
 * Only the array fields of objects (`self.lower` read as `self.lower[t]` in a method's backward sweep),
 * loaded once before the loops that read them: nothing else of this pass.
 */
export function hoistInvariantFields(f: Func): Func {
  // (most functions read no array field of an object: then there is nothing to load, and no loop to look into)
  const body = readsArrayFields(f.body) ? inBody(f.body, new Set(), new Names(declaredNames(f)), new Set(f.params.map((p) => p.name)), true) : f.body;
  return { ...f, body: propagateCopies(body) };
}

/** does an expression of `body` read an array or object field of an object variable (what hoistInvariantFields loads)? */
function readsArrayFields(body: Stmt[]): boolean {
  let found = false;
  forEachStmt(body, (s) => {
    for (const e of stmtExprs(s))
      forEachExpr(e, (x) => {
        if (x.k === 'field' && x.obj.k === 'var' && isRef(x.ty) && tyOf(x.obj).k === 'obj') found = true;
      });
  });
  return found;
}

/**
 * `const a = b` (left by forwarding: `const qdiffb_elem0 = qdiffb_elem1`) goes, its uses read `b`,
 * when nothing after it in its block assigns `b`. A list with no such copy, inside too, comes back as it is.
 */
function propagateCopies(list: Stmt[]): Stmt[] {
  let rest = list;
  for (let i = 0; i < list.length; i++) {
    const t = keptBodies(list[i], propagateCopies);
    if (t === list[i]) continue;
    if (rest === list) rest = [...list];
    rest[i] = t;
  }
  if (!rest.some(isCopy)) return rest;
  // (renaming reads changes no statement's assigned or declared names: where each is last assigned,
  // by top-level statement, is found once, and each statement is renamed once, by the copies before it)
  const lastDef = new Map<string, number>();
  let j = 0;
  const defs = (x: Stmt) => {
    if (x.k === 'assign' && x.target.k === 'var') lastDef.set(x.target.name, j);
    else if (x.k === 'decl') lastDef.set(x.name, j);
  };
  for (; j < rest.length; j++) forEachStmt([rest[j]], defs);
  const renamed = new Map<string, Expr>();
  const rename = (e: Expr) => (e.k === 'var' ? renamed.get(e.name) ?? e : e);
  const out: Stmt[] = [];
  for (let i = 0; i < rest.length; i++) {
    const s = renamed.size ? mapStmts([rest[i]], rename)[0] : rest[i];
    if (isCopy(s)) {
      const to = s.init;
      if ((lastDef.get(to.name) ?? -1) <= i && (lastDef.get(s.name) ?? -1) <= i) {
        renamed.set(s.name, to);
        continue;
      }
    }
    out.push(s);
  }
  return out;
}

/** `const a = b` of a number or a reference */
function isCopy(s: Stmt): s is Extract<Stmt, { k: 'decl' }> & { init: Extract<Expr, { k: 'var' }> } {
  return s.k === 'decl' && s.konst && s.init?.k === 'var' && s.init.name !== s.name && (s.ty.k === 'num' || isRef(s.ty));
}

/** mapBodies, but `s` itself when `f` gives back each of its lists unchanged */
function keptBodies(s: Stmt, f: (list: Stmt[]) => Stmt[]): Stmt {
  const lists = bodiesOf(s);
  if (lists.length === 0) return s;
  const mapped = lists.map(f);
  if (mapped.every((l, k) => l === lists[k])) return s;
  let k = 0;
  return mapBodies(s, () => mapped[k++]);
}

/**
 * A fresh array whose elements nothing reads any more (every read was forwarded to a local) loses
 * its stores, and its allocation when nothing else mentions it. The arrays are taken in turn, and
 * what one loses no longer reads the next: one walk counts, per statement, the fresh arrays it reads
 * and mentions, and dropping a statement takes its counts away.
 */
function dropWriteOnlyArrays(body: Stmt[], fresh: Set<string>): Stmt[] {
  if (fresh.size === 0) return body;
  const units = freshArrayUses(body, fresh);
  const reads = new Map<string, number>();
  const mentions = new Map<string, number>();
  const add = (m: Map<string, number>, names: Set<string> | null, k: number) => names?.forEach((n) => m.set(n, (m.get(n) ?? 0) + k));
  for (const u of units) {
    add(reads, u.reads, 1);
    add(mentions, u.mentions, 1);
  }
  const dropped = new Set<Stmt>();
  const drop = (u: FreshArrayUse) => {
    if (dropped.has(u.s)) return;
    dropped.add(u.s);
    add(reads, u.reads, -1);
    add(mentions, u.mentions, -1);
  };
  const storesOf = groupBy(units, (u) => u.storeOf);
  const defsOf = groupBy(units, (u) => u.defines);
  for (const arr of fresh) {
    const stores = storesOf.get(arr) ?? [];
    if ((reads.get(arr) ?? 0) > 0 || stores.some((u) => u.impure)) continue;
    stores.forEach(drop);
    if ((mentions.get(arr) ?? 0) === 0) (defsOf.get(arr) ?? []).forEach(drop);
  }
  return dropped.size ? filterStmts(body, (s) => !dropped.has(s)) : body;
}

function groupBy<T>(items: readonly T[], key: (t: T) => string | null): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const t of items) {
    const k = key(t);
    if (k === null) continue;
    const list = out.get(k);
    if (list) list.push(t);
    else out.set(k, [t]);
  }
  return out;
}

interface FreshArrayUse {
  s: Stmt;
  /** fresh arrays whose elements or length it reads (a store's own target not counted); null: none */
  reads: Set<string> | null;
  /** fresh arrays it names at all, but as the target of `a = …`; null: none */
  mentions: Set<string> | null;
  /** `a[i] = v`: the fresh array a */
  storeOf: string | null;
  /** a store whose value or index calls a function (its effect must stay) */
  impure: boolean;
  /** `const a = …` or `a = …` */
  defines: string | null;
}

function freshArrayUses(body: Stmt[], fresh: Set<string>): FreshArrayUse[] {
  const units: FreshArrayUse[] = [];
  // (the visitors are made once, and share the statement's findings: this walks every generated function)
  let reads: Set<string> | null = null;
  let mentions: Set<string> | null = null;
  let storeOf: string | null = null;
  let impure = false;
  const readIn = (x: Expr) => {
    if ((x.k === 'idx' || x.k === 'len') && x.obj.k === 'var' && fresh.has(x.obj.name)) (reads ??= new Set()).add(x.obj.name);
    if (storeOf && (x.k === 'call' || (x.k === 'intr' && !x.fn.startsWith('Math.')))) impure = true;
  };
  const mentionIn = (x: Expr) => {
    if (x.k === 'var' && fresh.has(x.name)) (mentions ??= new Set()).add(x.name);
  };
  forEachStmt(body, (s) => {
    storeOf = s.k === 'assign' && s.target.k === 'idx' && s.target.obj.k === 'var' && fresh.has(s.target.obj.name) ? s.target.obj.name : null;
    const defines = s.k === 'decl' ? s.name : s.k === 'assign' && s.target.k === 'var' ? s.target.name : null;
    reads = null;
    mentions = null;
    impure = false;
    if (storeOf) {
      const st = s as Extract<Stmt, { k: 'assign' }>;
      forEachExpr(st.value, readIn);
      forEachExpr((st.target as Extract<Expr, { k: 'idx' }>).index, readIn);
    } else forEachOwnExpr(s, readIn);
    if (!storeOf && s.k === 'assign' && s.target.k === 'idx') {
      const root = rootOf(s.target);
      if (root && fresh.has(root)) (reads ??= new Set()).add(root);
    }
    if (s.k === 'assign' && s.target.k === 'var') {
      // (the target's own name is no mention; nor is a value that is the target's very node)
      if (s.value !== s.target) forEachExpr(s.value, mentionIn);
    } else forEachOwnExpr(s, mentionIn);
    const defined = defines && fresh.has(defines) ? defines : null;
    if (reads || mentions || storeOf || defined) units.push({ s, reads, mentions, storeOf, impure, defines: defined });
  });
  return units;
}

/**
 * `list` without the statements (anywhere inside) that `keep` rejects, and without a counting loop
 * they left empty (the vector mode's `for (let nd = 0; nd < nbdirs; nd++)` around dropped stores)
 */
function filterStmts(list: Stmt[], keep: (s: Stmt) => boolean): Stmt[] {
  const out: Stmt[] = [];
  for (const s of list) {
    if (!keep(s)) continue;
    const t = mapBodies(s, (l) => filterStmts(l, keep));
    if (t.k === 'for' && s.k === 'for' && t.body.length === 0 && s.body.length > 0 && countsOnly(t)) continue;
    out.push(t);
  }
  return out;
}

/** `for (let i = …; i < …; i++)` with no call in its header: an empty one does nothing */
function countsOnly(s: Extract<Stmt, { k: 'for' }>): boolean {
  const [init] = s.init;
  if (s.init.length !== 1 || init.k !== 'decl' || s.update.length !== 1) return false;
  const [update] = s.update;
  if (update.k !== 'assign' || update.target.k !== 'var' || update.target.name !== init.name) return false;
  let pure = true;
  for (const e of [init.init, s.cond, update.value])
    if (e)
      forEachExpr(e, (x) => {
        if (x.k === 'call' || (x.k === 'intr' && !x.fn.startsWith('Math.'))) pure = false;
      });
  return pure;
}

/**
 * `ready`: arrays certainly holding a value here (parameters, and declarations with a value earlier in
 * this or an enclosing statement list). Only their elements are loaded ahead of a loop, which may run
 * zero times: a load from an array not yet assigned would throw where the loop would not.
 */
function inBody(body: Stmt[], fresh: Set<string>, names: Names, ready: Set<string>, fieldsOnly: boolean): Stmt[] {
  const out: Stmt[] = [];
  // (one set for the whole walk: what this list adds is taken out again at its end, no copy per list)
  const added: string[] = [];
  const markReady = (n: string) => {
    if (ready.has(n)) return;
    ready.add(n);
    added.push(n);
  };
  for (const s of body) {
    switch (s.k) {
      case 'for': {
        const innerBody = inBody(s.body, fresh, names, ready, fieldsOnly);
        const inner: Stmt = { ...s, body: fieldsOnly ? innerBody : forwardStores(innerBody, fresh, names) };
        out.push(...hoistFrom(inner as Extract<Stmt, { k: 'for' }>, fresh, names, ready, fieldsOnly));
        break;
      }
      case 'if':
        out.push({ ...s, then: inBody(s.then, fresh, names, ready, fieldsOnly), else: inBody(s.else, fresh, names, ready, fieldsOnly) });
        break;
      case 'while':
      case 'do':
      case 'block':
        out.push({ ...s, body: inBody(s.body, fresh, names, ready, fieldsOnly) });
        break;
      case 'switch':
        out.push({ ...s, cases: s.cases.map((c) => ({ tests: c.tests, body: inBody(c.body, fresh, names, ready, fieldsOnly) })) });
        break;
      default:
        out.push(s);
    }
    if (s.k === 'decl' && s.init) markReady(s.name);
    if (s.k === 'assign' && s.target.k === 'var') markReady(s.target.name);
  }
  for (const n of added) ready.delete(n);
  return out;
}

/**
 * An element of a fresh array stored and read again later in the same iteration
 * (`diff[j] = x[j] - mu[j]; qdiff[j] = e[j] * diff[j]`) is read from a local holding the stored value:
 * the JIT reloads it, not knowing that the stores between went to other arrays. Up to the next store
 * into the same array or a change of the index.
 */
function forwardStores(body: Stmt[], fresh: Set<string>, names: Names): Stmt[] {
  const out = [...body];
  const plain = (x: Stmt) => x.k === 'assign' || x.k === 'decl' || x.k === 'expr';
  for (let i = 0; i < out.length; i++) {
    const st = out[i];
    if (st.k !== 'assign' || st.target.k !== 'idx' || st.target.obj.k !== 'var' || st.target.ty.k !== 'num' || !fresh.has(st.target.obj.name)) continue;
    const e = st.target;
    const arr = (e.obj as Extract<Expr, { k: 'var' }>).name;
    const indexVars = new Set<string>();
    forEachExpr(e.index, (y) => {
      if (y.k === 'var') indexVars.add(y.name);
    });
    let last = -1;
    for (let j = i + 1; j < out.length; j++) {
      const x = out[j];
      if (!plain(x)) {
        // a nested loop or branch is crossed when it neither stores into the array nor changes the index
        let blocks = x.k === 'switch' || x.k === 'return' || x.k === 'break' || x.k === 'continue' || x.k === 'throw';
        let reads = false;
        forEachStmt([x], (y) => {
          if (y.k !== 'if' && y.k !== 'for' && y.k !== 'block' && !plain(y)) blocks = true;
          if (y.k === 'if' || y.k === 'for' || y.k === 'while' || y.k === 'do') for (const c of stmtExprs(y)) if (mentionsElem(c, e)) reads = true;
          if (plain(y) && readsOf(y).some((r) => mentionsElem(r, e))) reads = true;
          if (writesOrChanges(y, arr, indexVars)) blocks = true;
        });
        if (x.k === 'while' || x.k === 'do') blocks = true;
        if (blocks) break;
        if (reads) last = j;
        continue;
      }
      if (readsOf(x).some((r) => mentionsElem(r, e))) last = j;
      // (a statement that stores into the array still reads before it writes)
      if (writesOrChanges(x, arr, indexVars)) break;
    }
    if (last < 0) continue;
    const name = names.fresh(`${arr}_elem`);
    const v: Expr = { k: 'var', name, ty: NUM };
    const swap = (x: Expr) => mapExpr(x, (y) => (y.k === 'idx' && exprEq(y, e) ? v : y));
    const bind: Stmt = { k: 'decl', name, ty: NUM, init: st.value, konst: true, loc: st.loc };
    const store: Stmt = { ...st, value: v };
    delete (store as { op?: unknown }).op;
    const uses = rewrite(out.slice(i + 1, last + 1), swap);
    out.splice(i, last + 1 - i, bind, store, ...uses);
    i++;
  }
  return out;
}

function writesOrChanges(x: Stmt, arr: string, indexVars: Set<string>): boolean {
  const writesArr = x.k === 'assign' && x.target.k !== 'var' && rootOf(x.target) === arr;
  const changesIndex = (x.k === 'decl' && (indexVars.has(x.name) || x.name === arr)) || (x.k === 'assign' && x.target.k === 'var' && (indexVars.has(x.target.name) || x.target.name === arr));
  return writesArr || changesIndex;
}

function readsOf(x: Stmt): Expr[] {
  if (x.k === 'assign') return x.target.k === 'idx' ? [x.target.index, x.value] : [x.value];
  if (x.k === 'decl') return x.init ? [x.init] : [];
  if (x.k === 'expr') return [x.e];
  return [];
}

function mentionsElem(r: Expr, e: Expr): boolean {
  let hit = false;
  forEachExpr(r, (y) => {
    if (y.k === 'idx' && exprEq(y, e)) hit = true;
  });
  return hit;
}

/**
 * `const a_i = a[i]; for (…) { … a_i … }` for each invariant load; the loop itself if there is none.
 * A number is loaded ahead when every array the loop writes is a fresh allocation (no read of another
 * array sees those writes). A row (`scale[k]` read in a loop over r as `scale[k][r]`) is loaded ahead
 * when the loop stores no array or object anywhere: storing numbers into rows cannot change which row
 * an array holds, and without calls nothing else can; nor which array an object's field holds
 * (`self.lower` in `self.lower[t]`: a method's loops read their instance's arrays so).
 */
function hoistFrom(loop: Extract<Stmt, { k: 'for' }>, fresh: Set<string>, names: Names, ready: Set<string>, fieldsOnly: boolean): Stmt[] {
  const effects = loopEffects(loop);
  if (!effects) return [loop];
  const { assigned, written, storesRefs } = effects;
  // every array the loop writes must be a fresh allocation: then no read of another array sees its writes
  const numbersFixed = ![...written].some((w) => !fresh.has(w));
  const loads: Extract<Expr, { k: 'idx' | 'field' }>[] = [];
  const load = (x: Expr) => {
    // an object's array field (`self.lower` in `self.lower[t]`): no store of an array or object, and
    // no call, can make the field hold another array
    if (x.k === 'field' && x.obj.k === 'var' && isRef(x.ty) && tyOf(x.obj).k === 'obj' && !storesRefs && !assigned.has(x.obj.name) && ready.has(x.obj.name)) {
      if (!loads.some((l) => exprEq(l, x))) loads.push(x);
      return;
    }
    if (x.k !== 'idx' || x.obj.k !== 'var' || fieldsOnly) return;
    if (x.ty.k === 'num' ? !numbersFixed : !isRef(x.ty) || storesRefs) return;
    const a = x.obj.name;
    if (assigned.has(a) || (x.ty.k === 'num' && written.has(a)) || !ready.has(a)) return;
    if (!invariantIndex(x.index, assigned)) return;
    if (!loads.some((l) => exprEq(l, x))) loads.push(x);
  };
  const consider = (e: Expr) => forEachExpr(e, load);
  forEachStmt(loop.body, (s) => {
    if (s.k === 'assign') {
      consider(s.value);
      if (s.target.k === 'idx') {
        consider(s.target.index);
        consider(s.target.obj);
      }
    } else if (s.k === 'decl' && s.init) consider(s.init);
    else if (s.k === 'expr') consider(s.e);
    else if (s.k === 'if') consider(s.c);
    else if (s.k === 'for' && s.cond) consider(s.cond);
    else if (s.k === 'return' && s.e) consider(s.e);
  });
  if (!loads.length) return [loop];
  const decls: Stmt[] = [];
  const temps = loads.map((l) => {
    const a = l.obj as Extract<Expr, { k: 'var' }>;
    const name = names.fresh(l.k === 'field' ? `${a.name}_${l.name}` : l.index.k === 'var' ? `${a.name}_${l.index.name}` : `${a.name}_elem`);
    decls.push({ k: 'decl', name, ty: l.ty, init: l, konst: true });
    return { load: l, v: { k: 'var', name, ty: l.ty } as Expr };
  });
  const swap = (e: Expr): Expr => mapExpr(e, (x) => temps.find((t) => exprEq(t.load, x))?.v ?? x);
  return [...decls, { ...loop, body: rewrite(loop.body, swap) }];
}

function invariantIndex(e: Expr, assigned: Set<string>): boolean {
  let ok = true;
  forEachExpr(e, (x) => {
    if (x.k === 'var' && assigned.has(x.name)) ok = false;
    if (x.k === 'idx' || x.k === 'call' || x.k === 'intr' || x.k === 'field') ok = false;
  });
  return ok;
}

/**
 * variables the loop assigns, arrays it writes, and whether it stores an array or object anywhere;
 * null when it calls anything (effects unknown)
 */
function loopEffects(loop: Extract<Stmt, { k: 'for' }>): { assigned: Set<string>; written: Set<string>; storesRefs: boolean } | null {
  const assigned = new Set<string>();
  const written = new Set<string>();
  let storesRefs = false;
  let opaque = false;
  // (the tape's operations touch only the tape)
  const calls = (x: Expr) => {
    if (x.k === 'call' || (x.k === 'intr' && !x.fn.startsWith('Math.') && !x.fn.startsWith('tape.'))) opaque = true;
  };
  const visit = (s: Stmt) => {
    if (s.k === 'decl') assigned.add(s.name);
    if (s.k === 'assign') {
      if (s.target.k === 'var') assigned.add(s.target.name);
      else {
        const root = rootOf(s.target);
        if (root) written.add(root);
        else opaque = true;
        if (s.target.ty.k !== 'num' && s.target.ty.k !== 'int' && s.target.ty.k !== 'bool') storesRefs = true;
      }
    }
    const e = s.k === 'assign' ? s.value : s.k === 'decl' ? s.init : s.k === 'expr' ? s.e : s.k === 'return' ? s.e : null;
    if (e) forEachExpr(e, calls);
  };
  forEachStmt(loop.init, visit);
  forEachStmt(loop.update, visit);
  forEachStmt(loop.body, visit);
  return opaque ? null : { assigned, written, storesRefs };
}

function rootOf(e: Expr): string | null {
  if (e.k === 'var') return e.name;
  if (e.k === 'idx' || e.k === 'field') return rootOf(e.obj);
  return null;
}

/** arrays declared once, as a fresh allocation (or a tape buffer), and never reassigned */
function freshArrays(f: Func): Set<string> {
  const defs = new Map<string, number>();
  const allocated = new Set<string>();
  forEachStmt(f.body, (s) => {
    // (a declaration without a value, hoisted ahead of its one assignment, is not a definition)
    const name = s.k === 'decl' ? (s.init ? s.name : null) : s.k === 'assign' && s.target.k === 'var' ? s.target.name : null;
    if (!name) return;
    defs.set(name, (defs.get(name) ?? 0) + 1);
    const v = s.k === 'decl' ? s.init : s.k === 'assign' ? s.value : null;
    // (a buffer from the tape's free list is as fresh: no other live name refers to it)
    if (v && (v.k === 'alloc' || (v.k === 'intr' && TAPE_ALLOCATIONS.has(v.fn)))) allocated.add(name);
  });
  for (const p of f.params) defs.set(p.name, (defs.get(p.name) ?? 0) + 1);
  const escaped = escapingArrays(f);
  return new Set([...allocated].filter((n) => defs.get(n) === 1 && !escaped.has(n)));
}

function rewrite(body: Stmt[], swap: (e: Expr) => Expr): Stmt[] {
  return body.map((s): Stmt => {
    switch (s.k) {
      case 'decl':
        return { ...s, init: s.init ? swap(s.init) : null };
      case 'assign':
        return { ...s, value: swap(s.value), target: s.target.k === 'idx' ? { ...s.target, obj: swap(s.target.obj), index: swap(s.target.index) } : s.target };
      case 'expr':
        return { ...s, e: swap(s.e) };
      case 'return':
        return { ...s, e: s.e ? swap(s.e) : null };
      case 'if':
        return { ...s, c: swap(s.c), then: rewrite(s.then, swap), else: rewrite(s.else, swap) };
      case 'for':
        return { ...s, cond: s.cond ? swap(s.cond) : null, init: rewrite(s.init, swap), update: rewrite(s.update, swap), body: rewrite(s.body, swap) };
      case 'while':
      case 'do':
        return { ...s, cond: swap(s.cond), body: rewrite(s.body, swap) };
      case 'block':
        return { ...s, body: rewrite(s.body, swap) };
      case 'switch':
        return { ...s, disc: swap(s.disc), cases: s.cases.map((c) => ({ tests: c.tests, body: rewrite(c.body, swap) })) };
      default:
        return s;
    }
  });
}
