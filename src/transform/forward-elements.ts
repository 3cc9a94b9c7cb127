// Element forwarding, IR → IR on generated code: inside one loop iteration, an array element that
// straight-line statements read and write several times (`diffb[j] = acc; diffb[j] += s[j] * zb[j];
// meanb[j] -= diffb[j]; diffb[j] = 0`, what fusion leaves of a difference's adjoint) lives in a local
// from its first access to its last, and memory gets one store at the end. The JIT cannot do this
// itself: it cannot prove that the other arrays written in between (`meanb`) are not the same array.
//
// A window is a run of straight-line statements (assignments, declarations, expression statements)
// that mention the array only as `a[e]`, for one index `e` that the window does not change, with no
// call and no access to an array that may be `a` under another name (loop fusion's storage rules).
import type { Expr, Stmt } from '../ir/types.js';
import { exprEq, forEachExpr, mapBodies, mapExpr, mapStmts, rootVar, stmtExprs, tyOf, varsRead } from '../ir/util.js';
import { type KnownStorage, arrayPath, exclusiveArrays, mayAlias } from './fuse.js';

type Elem = Extract<Expr, { k: 'idx' }>;

/** every loop body of `body` with its repeatedly accessed elements held in locals; `fresh` names them */
export function forwardElements(body: Stmt[], storage: KnownStorage, fresh: (base: string) => string): Stmt[] {
  const exclusive = exclusiveArrays(body);
  const visit = (list: Stmt[], inLoop: boolean): Stmt[] => {
    const inner = list.map((s) => mapBodies(s, (b) => visit(b, inLoop || s.k === 'for' || s.k === 'while' || s.k === 'do')));
    return inLoop ? forwardIn(inner, storage, exclusive, fresh) : inner;
  };
  return visit(body, false);
}

function forwardIn(list: Stmt[], storage: KnownStorage, exclusive: ReadonlySet<string>, fresh: (base: string) => string): Stmt[] {
  // one element at a time, from where the last rewrite began (each rewrite leaves fewer element
  // accesses than it found: the loop ends)
  let out = list;
  let from = 0;
  for (;;) {
    const next = forwardOne(out, from, storage, exclusive, fresh);
    if (!next) return out;
    [out, from] = next;
  }
}

/** the first element worth forwarding in `list` from statement `from` rewritten, with where its window starts; null when there is none */
function forwardOne(list: Stmt[], from: number, storage: KnownStorage, exclusive: ReadonlySet<string>, fresh: (base: string) => string): [Stmt[], number] | null {
  for (let i = from; i < list.length; i++) {
    if (!straight(list[i])) continue;
    for (const el of elementsIn(list[i])) {
      const end = windowEnd(list, i, el, storage, exclusive);
      if (end > i && memoryOpsAfter(list, i, end, el) < countAccesses(list.slice(i, end + 1), el)) return [rewrite(list, i, end, el, fresh), i];
    }
  }
  return null;
}

function straight(s: Stmt): boolean {
  return s.k === 'assign' || s.k === 'decl' || s.k === 'expr';
}

/** the elements `a[e]` / `o.f[e]` of exact arrays a statement touches, with a plain index (no call, no element read) */
function elementsIn(s: Stmt): Elem[] {
  const out: Elem[] = [];
  for (const e of stmtExprs(s))
    forEachExpr(e, (x) => {
      if (x.k === 'idx' && exact(x.obj) && arrayPath(x.obj) !== null && plainIndex(x.index) && !out.some((y) => exprEq(y, x))) out.push(x);
    });
  return out;
}

/** a `number[]` or a Float64Array: an element reads back exactly what was stored (a Float32Array or an Int32Array rounds) */
function exact(a: Expr): boolean {
  const t = tyOf(a);
  return t.k === 'arr' && (t.elem.k === 'num' || t.elem.k === 'int') && t.ctor === undefined;
}

function plainIndex(e: Expr): boolean {
  let ok = true;
  forEachExpr(e, (x) => {
    if (x.k !== 'var' && x.k !== 'num' && !(x.k === 'bin' && (x.op === '+' || x.op === '-' || x.op === '*'))) ok = false;
  });
  return ok;
}

/**
 * The last statement of the window starting at `start` for `el` (start itself when the window is one
 * statement): it stops before a statement that is not straight-line, calls, changes the index or the
 * array's variable, or touches the array otherwise or an array that may be it.
 */
function windowEnd(list: Stmt[], start: number, el: Elem, storage: KnownStorage, exclusive: ReadonlySet<string>): number {
  const root = arrayPath(el.obj)!;
  const base = rootVar(el.obj)!;
  const fixed = new Set([...varsRead(el.index), base]);
  let last = start - 1;
  for (let i = start; i < list.length; i++) {
    const s = list[i];
    if (!straight(s) || !compatible(s, el, root, fixed, storage, exclusive)) break;
    if (countAccesses([s], el) > 0) last = i;
  }
  return last;
}

function compatible(s: Stmt, el: Elem, root: string, fixed: Set<string>, storage: KnownStorage, exclusive: ReadonlySet<string>): boolean {
  if ((s.k === 'assign' && s.target.k === 'var' && fixed.has(s.target.name)) || (s.k === 'decl' && fixed.has(s.name))) return false;
  let ok = true;
  for (const e of stmtExprs(s))
    forEachExpr(e, (x) => {
      if (x.k === 'call' || x.k === 'raw' || (x.k === 'intr' && !x.fn.startsWith('Math.'))) ok = false;
      if (x.k === 'idx') {
        // (another element of the same array: a different index may still be the same element; a row
        // `m[i][j]` counts as its matrix's storage, as in fusion)
        const p = arrayPath(x.obj) ?? rootVar(x) ?? '?';
        if (p === root ? !exprEq(x, el) : mayAlias(p, root, storage, exclusive)) ok = false;
      } else if (x.k === 'field' || x.k === 'var') {
        // the array itself passed, stored or measured: not an element access
        const p = arrayPath(x);
        if (p === root && !isObjOfElement(s, x)) ok = false;
      }
    });
  return ok;
}

/** whether `x` (the array's expression) occurs in `s` only as the array of an element access */
function isObjOfElement(s: Stmt, x: Expr): boolean {
  let found = false;
  for (const e of stmtExprs(s))
    forEachExpr(e, (y) => {
      if (y.k === 'idx' && y.obj === x) found = true;
    });
  return found;
}

function countAccesses(list: Stmt[], el: Elem): number {
  let n = 0;
  for (const s of list)
    for (const e of stmtExprs(s))
      forEachExpr(e, (x) => {
        if (x.k === 'idx' && exprEq(x, el)) n++;
      });
  return n;
}

/** the loads and stores of `el` that rewrite(list, start, end) leaves: a load unless it starts with a plain store, a store unless nothing writes */
function memoryOpsAfter(list: Stmt[], start: number, end: number, el: Elem): number {
  const window = list.slice(start, end + 1);
  const load = plainStore(window[0], el) ? 0 : 1;
  const store = window.some((s) => writes(s, el)) ? 1 : 0;
  return load + store;
}

/** `a[e] = v` with `v` not reading `a[e]` */
function plainStore(s: Stmt, el: Elem): boolean {
  return s.k === 'assign' && !s.op && s.target.k === 'idx' && exprEq(s.target, el) && countAccesses([{ k: 'expr', e: s.value }], el) === 0;
}

function writes(s: Stmt, el: Elem): boolean {
  return s.k === 'assign' && s.target.k === 'idx' && exprEq(s.target, el);
}

/** statements `start..end` with `el` in a local: loaded (or first set) once, stored once at the end */
function rewrite(list: Stmt[], start: number, end: number, el: Elem, fresh: (base: string) => string): Stmt[] {
  const name = fresh(`${arrayPath(el.obj)!.replace('.', '_')}_elem`);
  const local: Expr = { k: 'var', name, ty: el.ty };
  const replace = (x: Expr) => (x.k === 'idx' && exprEq(x, el) ? local : x);
  const swap = (e: Expr) => mapExpr(e, replace);
  // (a window holds straight-line statements only: mapStmts rebuilds just their expressions)
  const swapStmt = (x: Stmt) => mapStmts([x], replace)[0];
  const first = list[start];
  const out: Stmt[] = list.slice(0, start);
  const assigned = (s: Stmt) => s as Extract<Stmt, { k: 'assign' }>;
  // (the local is `const` when no statement after its first value writes it; a closing plain store writes memory)
  const closing = end > start && plainStore(list[end], el) ? end : -1;
  const writtenFrom = (i: number) => list.slice(i, end + 1).some((s, k) => i + k !== closing && writes(s, el));
  let dirty = false;
  // a first plain store becomes the local's initial value; anything else loads the element first
  if (plainStore(first, el)) {
    out.push({ k: 'decl', name, ty: el.ty, init: swap(assigned(first).value), konst: !writtenFrom(start + 1), loc: first.loc });
    dirty = true;
  } else {
    out.push({ k: 'decl', name, ty: el.ty, init: el, konst: !writtenFrom(start) });
    out.push(swapStmt(first));
    dirty = writes(first, el);
  }
  for (let i = start + 1; i <= end; i++) {
    const s = list[i];
    // the window's last statement, a plain store, stays a store (`diffb[j] = 0` after the last read)
    if (i === closing) {
      out.push({ ...assigned(s), value: swap(assigned(s).value) });
      dirty = false;
      continue;
    }
    if (writes(s, el)) dirty = true;
    out.push(swapStmt(s));
  }
  if (dirty) out.push({ k: 'assign', target: el, value: local });
  return [...out, ...list.slice(end + 1)];
}
