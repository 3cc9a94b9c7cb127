// Small, pure helpers over IR types and nodes shared by every pass.
import type { Expr, Func, LValue, Stmt, Ty } from './types.js';

export const NUM: Ty = { k: 'num' };
export const INT: Ty = { k: 'int' };
export const BOOL: Ty = { k: 'bool' };
export const VOID: Ty = { k: 'void' };

/** a read of an optional field (`o.z` with `z?: number`), narrowed or not */
export function isOptionalRead(e: Expr): boolean {
  return e.k === 'field' && (e.nn === true || tyOf(e).k === 'opt');
}

/** intrinsics that change the array their first argument names (its elements or its length) */
export const WRITING_INTRINSICS: ReadonlySet<string> = new Set(['push', 'pop', 'truncate', 'restoreInto', 'addInto', 'zeroFill']);
export const TAPE: Ty = { k: 'tape' };

export function isScalarFloat(t: Ty): boolean {
  return t.k === 'num';
}

/** Does a value of this type carry floats that can have derivatives? */
export function hasFloat(t: Ty): boolean {
  switch (t.k) {
    case 'num':
    case 'tape': // a tape holds floats: its derivative is a tape of derivatives
      return true;
    case 'arr':
      return hasFloat(t.elem);
    case 'tuple':
      return t.elems.some(hasFloat);
    case 'obj':
      return t.fields.some((f) => hasFloat(f.ty));
    case 'opt': // a nullable number carries a derivative where it is present; nullable arrays and objects are passive
      return t.base.k === 'num';
    default:
      return false;
  }
}

/** Reference types: arrays, tuples and objects are passed by reference. */
export function isRef(t: Ty): boolean {
  return t.k === 'arr' || t.k === 'tuple' || t.k === 'obj' || t.k === 'tape';
}

export function isNumeric(t: Ty): boolean {
  return t.k === 'num' || t.k === 'int';
}

export function elemTy(t: Ty, index?: Expr): Ty {
  if (t.k === 'arr') return t.elem;
  if (t.k === 'tuple') {
    if (index && index.k === 'num' && t.elems[index.v]) return t.elems[index.v];
    return t.elems[0] ?? NUM;
  }
  return NUM;
}

export function fieldTy(t: Ty, name: string): Ty {
  if (t.k === 'obj') {
    const f = t.fields.find((x) => x.name === name);
    if (f) return f.ty;
  }
  return NUM;
}

export function sameTy(a: Ty, b: Ty): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export function tyOf(e: Expr): Ty {
  switch (e.k) {
    case 'num':
      return Number.isInteger(e.v) && Math.abs(e.v) < 2 ** 31 ? INT : NUM;
    case 'bool':
      return BOOL;
    case 'str':
      return { k: 'str', lits: [e.v] };
    case 'undef':
      return VOID;
    case 'len':
      return INT;
    default:
      return e.ty;
  }
}

// ---------- builders ----------
export const num = (v: number): Expr => ({ k: 'num', v });
export const v = (name: string, ty: Ty = NUM): Expr & { k: 'var' } => ({ k: 'var', name, ty });
export function bin(op: Extract<Expr, { k: 'bin' }>['op'], a: Expr, b: Expr, ty: Ty = NUM): Expr {
  return { k: 'bin', op, a, b, ty };
}
export function intr(fn: string, args: Expr[], ty: Ty = NUM): Expr {
  return { k: 'intr', fn, args, ty };
}
export function assign(target: LValue, value: Expr, op?: Extract<Expr, { k: 'bin' }>['op']): Stmt {
  return op ? { k: 'assign', target, value, op } : { k: 'assign', target, value };
}
export function decl(name: string, ty: Ty, init: Expr | null, konst = false): Stmt {
  return { k: 'decl', name, ty, init, konst };
}
/** `for (let i = 0; i < len; i++) body` */
export function countedFor(i: string, len: Expr, body: Stmt[]): Stmt {
  const iv: Expr & { k: 'var' } = { k: 'var', name: i, ty: INT };
  return {
    k: 'for',
    init: [{ k: 'decl', name: i, ty: INT, init: { k: 'num', v: 0 }, konst: false }],
    cond: { k: 'bin', op: '<', a: iv, b: len, ty: BOOL },
    update: [{ k: 'assign', target: iv, value: { k: 'bin', op: '+', a: iv, b: { k: 'num', v: 1 }, ty: INT }, op: '+', inc: true }],
    body,
  };
}
export function exprStmt(e: Expr): Stmt {
  return { k: 'expr', e };
}
export function idx(obj: Expr, index: Expr, ty: Ty = NUM): Expr & { k: 'idx' } {
  return { k: 'idx', obj, index, ty };
}

// ---------- traversal ----------
export function forEachExpr(e: Expr, f: (e: Expr) => void): void {
  f(e);
  // (forEachChild's order, written out: the hottest walk of the compiler makes no closure per node)
  switch (e.k) {
    case 'bin':
      forEachExpr(e.a, f);
      forEachExpr(e.b, f);
      break;
    case 'un':
      forEachExpr(e.a, f);
      break;
    case 'cond':
      forEachExpr(e.c, f);
      forEachExpr(e.a, f);
      forEachExpr(e.b, f);
      break;
    case 'call':
    case 'intr':
      // (indexed loops: an iterator is an allocation per loop until the JIT has optimized the walk)
      for (let i = 0; i < e.args.length; i++) forEachExpr(e.args[i], f);
      break;
    case 'idx':
      forEachExpr(e.obj, f);
      forEachExpr(e.index, f);
      break;
    case 'field':
    case 'len':
      forEachExpr(e.obj, f);
      break;
    case 'arrlit':
      for (let i = 0; i < e.elems.length; i++) forEachExpr(e.elems[i], f);
      break;
    case 'objlit':
      for (let i = 0; i < e.fields.length; i++) forEachExpr(e.fields[i].value, f);
      break;
    case 'alloc':
      forEachExpr(e.len, f);
      if (e.fill) forEachExpr(e.fill, f);
      break;
    case 'sub':
      forEachExpr(e.obj, f);
      forEachExpr(e.start, f);
      if (e.end) forEachExpr(e.end, f);
      break;
    default:
      break;
  }
}

/** the direct subexpressions of `e`, in evaluation order */
export function forEachChild(e: Expr, f: (c: Expr) => void): void {
  switch (e.k) {
    case 'bin':
      f(e.a);
      f(e.b);
      break;
    case 'un':
      f(e.a);
      break;
    case 'cond':
      f(e.c);
      f(e.a);
      f(e.b);
      break;
    case 'call':
    case 'intr':
      e.args.forEach(f);
      break;
    case 'idx':
      f(e.obj);
      f(e.index);
      break;
    case 'field':
    case 'len':
      f(e.obj);
      break;
    case 'arrlit':
      e.elems.forEach(f);
      break;
    case 'objlit':
      e.fields.forEach((x) => f(x.value));
      break;
    case 'alloc':
      f(e.len);
      if (e.fill) f(e.fill);
      break;
    case 'sub':
      f(e.obj);
      f(e.start);
      if (e.end) f(e.end);
      break;
    default:
      break;
  }
}

/** Rebuild an expression bottom-up; `f` sees children already mapped. */
export function mapExpr(e: Expr, f: (e: Expr) => Expr): Expr {
  let r: Expr;
  switch (e.k) {
    case 'bin':
      r = { ...e, a: mapExpr(e.a, f), b: mapExpr(e.b, f) };
      break;
    case 'un':
      r = { ...e, a: mapExpr(e.a, f) };
      break;
    case 'cond':
      r = { ...e, c: mapExpr(e.c, f), a: mapExpr(e.a, f), b: mapExpr(e.b, f) };
      break;
    case 'call':
    case 'intr':
      r = { ...e, args: e.args.map((a) => mapExpr(a, f)) };
      break;
    case 'idx':
      r = { ...e, obj: mapExpr(e.obj, f), index: mapExpr(e.index, f) };
      break;
    case 'field':
    case 'len':
      r = { ...e, obj: mapExpr(e.obj, f) };
      break;
    case 'arrlit':
      r = { ...e, elems: e.elems.map((a) => mapExpr(a, f)) };
      break;
    case 'objlit':
      r = { ...e, fields: e.fields.map((a) => ({ name: a.name, value: mapExpr(a.value, f) })) };
      break;
    case 'alloc':
      r = { ...e, len: mapExpr(e.len, f), fill: e.fill ? mapExpr(e.fill, f) : null };
      break;
    case 'sub':
      r = { ...e, obj: mapExpr(e.obj, f), start: mapExpr(e.start, f), end: e.end ? mapExpr(e.end, f) : null };
      break;
    default:
      r = e;
  }
  return f(r);
}

/** A copy of statements with every expression in them (assignment targets too) rebuilt by mapExpr with `f`. */
export function mapStmts(body: Stmt[], f: (e: Expr) => Expr): Stmt[] {
  const m = (e: Expr) => mapExpr(e, f);
  return body.map((s): Stmt => {
    switch (s.k) {
      case 'decl':
        return { ...s, init: s.init ? m(s.init) : null };
      case 'assign':
        return { ...s, target: m(s.target) as LValue, value: m(s.value) };
      case 'expr':
        return { ...s, e: m(s.e) };
      case 'if':
        return { ...s, c: m(s.c), then: mapStmts(s.then, f), else: mapStmts(s.else, f) };
      case 'for':
        return { ...s, init: mapStmts(s.init, f), cond: s.cond ? m(s.cond) : null, update: mapStmts(s.update, f), body: mapStmts(s.body, f) };
      case 'while':
      case 'do':
        return { ...s, cond: m(s.cond), body: mapStmts(s.body, f) };
      case 'block':
        return { ...s, body: mapStmts(s.body, f) };
      case 'switch':
        return { ...s, disc: m(s.disc), cases: s.cases.map((c) => ({ tests: c.tests ? c.tests.map(m) : null, body: mapStmts(c.body, f) })) };
      case 'return':
        return { ...s, e: s.e ? m(s.e) : null };
      case 'throw':
        return { ...s, e: m(s.e) };
      default:
        return s;
    }
  });
}

/** whether a statement in `list` (anywhere inside) leaves its iteration early: break, continue, return, throw */
export function hasJump(list: Stmt[]): boolean {
  let found = false;
  forEachStmt(list, (s) => {
    if (s.k === 'break' || s.k === 'continue' || s.k === 'return' || s.k === 'throw') found = true;
  });
  return found;
}

/** `s` with each statement list directly inside it (branches, loop and block bodies, cases) mapped by `f` */
export function mapBodies(s: Stmt, f: (list: Stmt[]) => Stmt[]): Stmt {
  switch (s.k) {
    case 'if':
      return { ...s, then: f(s.then), else: f(s.else) };
    case 'for':
    case 'while':
    case 'do':
    case 'block':
      return { ...s, body: f(s.body) };
    case 'switch':
      return { ...s, cases: s.cases.map((c) => ({ tests: c.tests, body: f(c.body) })) };
    default:
      return s;
  }
}

/** the statement lists directly inside `s` */
export function bodiesOf(s: Stmt): Stmt[][] {
  switch (s.k) {
    case 'if':
      return [s.then, s.else];
    case 'for':
    case 'while':
    case 'do':
    case 'block':
      return [s.body];
    case 'switch':
      return s.cases.map((c) => c.body);
    default:
      return [];
  }
}

export function forEachStmt(body: Stmt[], f: (s: Stmt) => void): void {
  // (indexed loops, as in forEachExpr)
  for (let i = 0; i < body.length; i++) {
    const s = body[i];
    f(s);
    switch (s.k) {
      case 'if':
        forEachStmt(s.then, f);
        forEachStmt(s.else, f);
        break;
      case 'for':
        forEachStmt(s.init, f);
        forEachStmt(s.update, f);
        forEachStmt(s.body, f);
        break;
      case 'while':
      case 'do':
      case 'block':
        forEachStmt(s.body, f);
        break;
      case 'switch':
        for (let j = 0; j < s.cases.length; j++) forEachStmt(s.cases[j].body, f);
        break;
      default:
        break;
    }
  }
}

/** Every expression directly held by a statement (not nested statements). */
export function stmtExprs(s: Stmt): Expr[] {
  switch (s.k) {
    case 'decl':
      return s.init ? [s.init] : [];
    case 'assign':
      return [s.target, s.value];
    case 'expr':
      return [s.e];
    case 'if':
      return [s.c];
    case 'for':
      return s.cond ? [s.cond] : [];
    case 'while':
    case 'do':
      return [s.cond];
    case 'switch':
      return [s.disc, ...s.cases.flatMap((c) => c.tests ?? [])];
    case 'return':
      return s.e ? [s.e] : [];
    case 'throw':
      return [s.e];
    default:
      return [];
  }
}

/** forEachExpr over each expression a statement holds directly, in stmtExprs' order, with no list made (hot walks) */
export function forEachOwnExpr(s: Stmt, f: (e: Expr) => void): void {
  switch (s.k) {
    case 'decl':
      if (s.init) forEachExpr(s.init, f);
      return;
    case 'assign':
      forEachExpr(s.target, f);
      forEachExpr(s.value, f);
      return;
    case 'expr':
    case 'throw':
      forEachExpr(s.e, f);
      return;
    case 'if':
      forEachExpr(s.c, f);
      return;
    case 'for':
      if (s.cond) forEachExpr(s.cond, f);
      return;
    case 'while':
    case 'do':
      forEachExpr(s.cond, f);
      return;
    case 'switch':
      forEachExpr(s.disc, f);
      for (let i = 0; i < s.cases.length; i++) {
        const tests = s.cases[i].tests;
        if (tests) for (let j = 0; j < tests.length; j++) forEachExpr(tests[j], f);
      }
      return;
    case 'return':
      if (s.e) forEachExpr(s.e, f);
      return;
    default:
      return;
  }
}

/** The variable at the root of an access path: `a` for a[i].f[j]. */
export function rootVar(e: Expr): string | null {
  switch (e.k) {
    case 'var':
      return e.name;
    case 'idx':
    case 'field':
    case 'len':
    case 'sub':
      return rootVar(e.obj);
    default:
      return null;
  }
}

export function varsRead(e: Expr, out: Set<string> = new Set()): Set<string> {
  forEachExpr(e, (x) => {
    if (x.k === 'var') out.add(x.name);
  });
  return out;
}

/** does `e` read the variable `name`? (varsRead(e).has(name) with no set made) */
export function readsVar(e: Expr, name: string): boolean {
  switch (e.k) {
    case 'var':
      return e.name === name;
    case 'num':
    case 'bool':
    case 'str':
    case 'undef':
    case 'global':
    case 'raw':
      return false;
    default: {
      let found = false;
      forEachExpr(e, (x) => {
        if (x.k === 'var' && x.name === name) found = true;
      });
      return found;
    }
  }
}

/** the same expression, up to source locations and types (a NaN literal equals no other: the answer errs on "different") */
export function exprEq(a: Expr, b: Expr): boolean {
  return sameTree(a, b);
}

function sameTree(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => sameTree(x, b[i]));
  if (Array.isArray(b)) return false;
  const ra = a as Record<string, unknown>, rb = b as Record<string, unknown>;
  if (ra.k !== rb.k) return false; // (most comparisons end here)
  // (the same keys, less positions, types and absent ones, holding the same trees; no key list is made:
  // the compiler compares trees in many passes)
  let n = 0;
  for (const k in ra) {
    if (k === 'loc' || k === 'ty' || ra[k] === undefined) continue;
    if (!sameTree(ra[k], rb[k])) return false;
    n++;
  }
  for (const k in rb) if (k !== 'loc' && k !== 'ty' && rb[k] !== undefined) n--;
  return n === 0;
}

export function containsCall(e: Expr): boolean {
  let found = false;
  forEachExpr(e, (x) => {
    if (x.k === 'call') found = true;
  });
  return found;
}

/** depth of the deepest loop nest in `list` (0: no loop), through branches and blocks */
export function loopNestDepth(list: Stmt[]): number {
  let m = 0;
  for (const s of list) {
    if (s.k === 'for' || s.k === 'while' || s.k === 'do') m = Math.max(m, 1 + loopNestDepth(s.body));
    else if (s.k === 'if') m = Math.max(m, loopNestDepth(s.then), loopNestDepth(s.else));
    else if (s.k === 'block') m = Math.max(m, loopNestDepth(s.body));
  }
  return m;
}

/** Names declared anywhere in a function (params and locals). */
export function declaredNames(f: Func): Set<string> {
  const s = new Set(f.params.map((p) => p.name));
  forEachStmt(f.body, (st) => {
    if (st.k === 'decl') s.add(st.name);
  });
  return s;
}

export function cloneExpr<T extends Expr>(e: T): T {
  return mapExpr(e, (x) => x) as T;
}

/**
 * Every `for` of `body` whose header no longer holds only what a header can (derivative code added
 * declarations or loops to its initialiser or update) settled by settleForHeader. Walks once to find
 * such a loop: most bodies have none and come back as they are.
 */
export function fixForUpdates(body: Stmt[]): Stmt[] {
  let unsettled = false;
  forEachStmt(body, (s) => {
    if (s.k === 'for' && settleForHeader(s) !== s) unsettled = true;
  });
  return unsettled ? settleAll(body) : body;
}

function settleAll(body: Stmt[]): Stmt[] {
  return body.map((s) => {
    const t = mapBodies(s, settleAll);
    return t.k === 'for' ? settleForHeader(t) : t;
  });
}

/** `for (…; …; update) body` with the update at the end of the body, and before each `continue` of the loop (which ran it) */
function updateIntoBody(s: Extract<Stmt, { k: 'for' }>): Extract<Stmt, { k: 'for' }> {
  return { ...s, update: [], body: [...updateBeforeContinue(s.body, s.label, s.update, false), ...s.update] };
}

/** can these statements stand in a `for` header's initialiser: one statement, or `let` declarations only, or assignments only? */
function fitsForHeader(init: Stmt[]): boolean {
  const simple = (x: Stmt) => x.k === 'decl' || x.k === 'assign' || x.k === 'expr';
  return init.length <= 1 ? init.every(simple) : init.every((x) => x.k === 'decl' && !x.konst) || init.every((x) => x.k === 'assign' || x.k === 'expr');
}

/**
 * A `for` loop whose header holds what a header can: an initialiser that needs statements first
 * (`Math.max(...b)` is a loop, a tangent in vector mode too, `x || 2` a constant) goes before the loop in
 * a block of its own (for its scope); such an update goes to the end of the body.
 */
export function settleForHeader(s: Extract<Stmt, { k: 'for' }>): Stmt {
  if (s.update.every((x) => x.k === 'assign' || x.k === 'expr')) return fitsForHeader(s.init) ? s : { k: 'block', body: [...s.init, { ...s, init: [] }], loc: s.loc };
  // (the update may run in two places, before a `continue` too: its constants are declared once, before the loop)
  const declared: Stmt[] = [];
  const update = s.update.flatMap((x): Stmt[] => {
    if (x.k !== 'decl') return [x];
    declared.push({ k: 'decl', name: x.name, ty: x.ty, init: null, konst: false, loc: x.loc });
    return x.init ? [{ k: 'assign', target: { k: 'var', name: x.name, ty: x.ty }, value: x.init, loc: x.loc }] : [];
  });
  const loop = updateIntoBody({ ...s, update });
  if (fitsForHeader(loop.init) && !declared.length) return loop;
  return fitsForHeader(loop.init) ? { k: 'block', body: [...declared, loop], loc: s.loc } : { k: 'block', body: [...declared, ...loop.init, { ...loop, init: [] }], loc: s.loc };
}

/** `list` with `update` before each `continue` that goes to the next iteration of the loop labelled `label` (the enclosing one when unlabelled) */
function updateBeforeContinue(list: Stmt[], label: string | undefined, update: Stmt[], nested: boolean): Stmt[] {
  return list.flatMap((x): Stmt[] => {
    if (x.k === 'continue' && ((!x.label && !nested) || (x.label !== undefined && x.label === label))) return [...update, x];
    const inner = x.k === 'for' || x.k === 'while' || x.k === 'do';
    return [mapBodies(x, (b) => updateBeforeContinue(b, label, update, nested || inner))];
  });
}

/**
 * The rest of the line after a `$ad word` directive in a comment's text (`// $ad binomial-ckp 8` gives
 * ` 8`), without a closing `*\/`; null if the comment holds no such directive. A directive opens its
 * comment or one of its lines: prose that mentions one is not one.
 */
export function directiveArgs(comment: string, word: string): string | null {
  const m = new RegExp(`^[ \\t]*(?:\\/\\/+|\\/\\*+|\\*+)?[ \\t]*\\$ad[ \\t]+${word}(?![\\w-])([^\\n]*)`, 'm').exec(comment);
  return m ? m[1].replace(/\*\/\s*$/, '') : null;
}

/** does one of these comments hold the directive `$ad word`? */
export function hasDirectiveIn(comments: readonly string[] | undefined, word: string): boolean {
  return (comments ?? []).some((c) => directiveArgs(c, word) !== null);
}

/**
 * A deep copy of IR data (plain objects, arrays, Maps and Sets), keeping which parts are shared: a node
 * reached twice is copied once. (structuredClone does the same, but is missing in some sandboxes.)
 */
export function deepCopy<T>(value: T, seen = new Map<unknown, unknown>()): T {
  if (typeof value !== 'object' || value === null) return value;
  const done = seen.get(value);
  if (done !== undefined) return done as T;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    seen.set(value, out);
    for (const x of value) out.push(deepCopy(x, seen));
    return out as T;
  }
  if (value instanceof Map) {
    const out = new Map();
    seen.set(value, out);
    for (const [k, v] of value) out.set(deepCopy(k, seen), deepCopy(v, seen));
    return out as T;
  }
  if (value instanceof Set) {
    const out = new Set();
    seen.set(value, out);
    for (const x of value) out.add(deepCopy(x, seen));
    return out as T;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value; // not IR data: shared as it is
  const out: Record<string, unknown> = Object.create(proto);
  seen.set(value, out);
  for (const k of Object.keys(value)) out[k] = deepCopy((value as Record<string, unknown>)[k], seen);
  return out as T;
}

/**
 * Freezes IR data (plain objects and arrays, and what Maps and Sets hold; a Map or Set itself cannot be
 * frozen): IR shared between compiles cannot be changed by one of them. Returns `value`.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  if (value instanceof Map) {
    for (const [k, v] of value) {
      deepFreeze(k);
      deepFreeze(v);
    }
    return value;
  }
  if (value instanceof Set) {
    for (const x of value) deepFreeze(x);
    return value;
  }
  const proto = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) return value; // not IR data
  Object.freeze(value);
  for (const x of Object.values(value as object)) deepFreeze(x);
  return value;
}

/** the `return` statements of a body, through branches, loops, blocks and switch cases */
export function countReturns(list: Stmt[]): number {
  let n = 0;
  const visit = (ss: Stmt[]) => {
    for (const st of ss) {
      if (st.k === 'return') n++;
      else if (st.k === 'if') {
        visit(st.then);
        visit(st.else);
      } else if (st.k === 'for' || st.k === 'while' || st.k === 'do' || st.k === 'block') visit(st.body);
      else if (st.k === 'switch') for (const c of st.cases) visit(c.body);
    }
  };
  visit(list);
  return n;
}

/**
 * A call as the user wrote it, for messages: \`new C(…)\` for a constructor, the getter, setter or method
 * by its own name for a member (the front end names them `C_new`, `C_get_x`, `C_set_x`, `C_m`), the
 * function's name otherwise.
 */
export function calleeText(c: Extract<Expr, { k: 'call' }>): string {
  if (c.origin === 'class.new') return `\`new ${c.fn.replace(/_new$/, '')}(…)\``;
  if (c.origin !== 'class.method') return `'${c.fn}'`;
  const member = c.fn.replace(/^[^_]+_/, '');
  const accessor = /^(get|set)_(.+)$/.exec(member);
  return accessor ? `the ${accessor[1] === 'get' ? 'getter' : 'setter'} '${accessor[2]}'` : `the method '${member}'`;
}
