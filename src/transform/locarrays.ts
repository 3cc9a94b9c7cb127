// Iteration-local adjoint arrays, IR → IR on generated code: the array counterpart of merge.ts's
// iteration-local scalars. The adjoint of a scratch array (`diffb` for `diff`, a fresh zero-filled
// allocation) is, in each iteration of the loop that uses it, first incremented element by element and
// at the end reset element by element, because the primal iteration overwrites the whole array. It is
// then all zeros at the start of every iteration, so:
//   - in the first loop that touches it, an element read before it is written is 0, and an increment
//     is an assignment (`qdiffb[j] += e` → `qdiffb[j] = e`);
//   - once that loop writes every element before reading any, the values left from the iteration
//     before are never read, so the closing resets and the stores after the last read go, and a store
//     read again later in the same inner iteration becomes a local.
// Hand-written gradients do the same: they keep a scratch derivative per iteration and never clear it.
import type { Expr, Stmt } from '../ir/types.js';
import { NUM, containsCall, exprEq, forEachExpr, forEachStmt, hasJump, mapBodies, mapExpr, stmtExprs, readsVar } from '../ir/util.js';

type For = Extract<Stmt, { k: 'for' }>;
type Alloc = Extract<Expr, { k: 'alloc' }>;

/** `body` (a function body) with every iteration-local adjoint array rewritten; `fresh` names locals */
export function iterationLocalArrays(body: Stmt[], fresh: (base: string) => string): Stmt[] {
  let out = body;
  for (const s of body) {
    const a = zeroAllocation(s);
    if (a) out = rewriteLocalArray(out, a.name, a.len, fresh) ?? out;
  }
  return out;
}

/** `A = new Float64Array(n)` / `new Array(n).fill(0)` as a statement of the function body */
function zeroAllocation(s: Stmt): { name: string; len: Expr } | null {
  let name: string;
  let init: Expr | null;
  if (s.k === 'decl') [name, init] = [s.name, s.init];
  else if (s.k === 'assign' && s.target.k === 'var') [name, init] = [s.target.name, s.value];
  else return null;
  if (!init || init.k !== 'alloc' || init.ty.k !== 'arr' || init.ty.elem.k !== 'num') return null;
  const zero = (init as Alloc).fill === null ? init.ty.typed : init.fill!.k === 'num' && init.fill!.v === 0;
  return zero ? { name, len: init.len } : null;
}

function rewriteLocalArray(body: Stmt[], arr: string, len: Expr, fresh: (base: string) => string): Stmt[] | null {
  const at = body.findIndex((s) => zeroAllocation(s)?.name === arr);
  if (!onlyElementAccess(body, arr) || !stableAfter(body, at, len)) return null;
  // every other use sits in one top-level statement after the allocation, inside one loop
  const uses = body.map((s, i) => (i !== at && touchesArray(s, arr) ? i : -1)).filter((i) => i >= 0);
  if (uses.length !== 1 || uses[0] < at) return null;
  const loop = innermostLoopOf(body[uses[0]], arr);
  if (!loop || hasJump(loop.body) || stmtExprs(loop).some((e) => readsVar(e, arr))) return null;
  const touching = loop.body.map((s, i) => (touchesArray(s, arr) ? i : -1)).filter((i) => i >= 0);
  if (touching.length === 0) return null;
  const first = loop.body[touching[0]];
  const last = loop.body[touching[touching.length - 1]];
  if (first.k !== 'for' || last.k !== 'for') return null;
  const v1 = coveringCounter(first, arr, len);
  const vm = coveringCounter(last, arr, len);
  if (!v1 || !vm || !endsWithReset(last, arr, vm)) return null;
  const firstBody = writeFirst(first.body, arr, v1);
  if (!firstBody) return null;
  let newFirst: For = { ...first, body: firstBody };
  let newLast: For = first === last ? newFirst : last;
  newLast = { ...newLast, body: forwardLastStore(dropDeadStores(newLast.body, arr), arr, vm, fresh) };
  if (first === last) newFirst = newLast;
  const newBody = loop.body.map((s) => (s === first ? newFirst : s === last ? newLast : s));
  return replaceLoop(body, loop, { ...loop, body: newBody });
}

/** the array is only indexed or measured: never copied, passed, pushed or reassigned past its allocation */
function onlyElementAccess(body: Stmt[], arr: string): boolean {
  let ok = true;
  let allocations = 0;
  forEachStmt(body, (s) => {
    if (s.k === 'assign' && s.target.k === 'var' && s.target.name === arr) {
      allocations++;
      for (const e of [s.value]) checkExpr(e);
    } else if (s.k === 'decl' && s.name === arr) {
      if (s.init) allocations++;
      if (s.init) checkExpr(s.init);
    } else {
      for (const e of stmtExprs(s)) checkExpr(e);
    }
  });
  function checkExpr(e: Expr): void {
    if (!onlyIndexedIn(e, arr)) ok = false;
  }
  return ok && allocations === 1;
}

/** every mention of the array in `e` is the array of an element access or of a length */
export function onlyIndexedIn(e: Expr, arr: string): boolean {
  let allowed = 0;
  let all = 0;
  forEachExpr(e, (x) => {
    if ((x.k === 'idx' || x.k === 'len') && x.obj.k === 'var' && x.obj.name === arr) allowed++;
    if (x.k === 'var' && x.name === arr) all++;
  });
  return all === allowed;
}

/** every variable of the length is assigned once, by a top-level statement before the allocation */
function stableAfter(body: Stmt[], at: number, len: Expr): boolean {
  const vars = new Set<string>();
  forEachExpr(len, (x) => {
    if (x.k === 'var') vars.add(x.name);
  });
  for (const name of vars) {
    const sites: Stmt[] = [];
    forEachStmt(body, (s) => {
      if (s.k === 'assign' && s.target.k === 'var' && s.target.name === name) sites.push(s);
      // (locals are declared with a zero first and assigned later)
      if (s.k === 'decl' && s.name === name && s.init && !(s.init.k === 'num' && s.init.v === 0)) sites.push(s);
    });
    if (sites.length !== 1 || body.indexOf(sites[0]) < 0 || body.indexOf(sites[0]) >= at) return false;
  }
  return true;
}

export function touchesArray(s: Stmt, arr: string): boolean {
  let hit = false;
  forEachStmt([s], (x) => {
    for (const e of stmtExprs(x)) if (readsVar(e, arr)) hit = true;
  });
  return hit;
}

/** the innermost loop holding every use of the array in `s` (through branches and blocks) */
function innermostLoopOf(s: Stmt, arr: string): For | null {
  const only = (list: Stmt[]): Stmt | null => {
    const t = list.filter((x) => touchesArray(x, arr));
    return t.length === 1 ? t[0] : null;
  };
  switch (s.k) {
    case 'for': {
      if (stmtExprs(s).some((e) => readsVar(e, arr)) || [...s.init, ...s.update].some((x) => touchesArray(x, arr))) return null;
      const inner = only(s.body);
      const nested = inner && (inner.k === 'for' || inner.k === 'block' || inner.k === 'if') ? innermostLoopOf(inner, arr) : null;
      return nested ?? s;
    }
    case 'block': {
      const inner = only(s.body);
      return inner ? innermostLoopOf(inner, arr) : null;
    }
    case 'if': {
      if (readsVar(s.c, arr)) return null;
      const inner = only([...s.then, ...s.else]);
      return inner ? innermostLoopOf(inner, arr) : null;
    }
    default:
      return null;
  }
}

/**
 * The counter `v` of a loop that runs `v` over every index of the array once (up from 0 below the
 * length, or down from length - 1 to 0), touches the array only as `arr[v]` in statements directly in
 * its body, and never assigns `v` or jumps.
 */
function coveringCounter(loop: For, arr: string, len: Expr): string | null {
  if (loop.init.length !== 1 || loop.update.length !== 1 || !loop.cond || hasJump(loop.body)) return null;
  const init = loop.init[0];
  const v = init.k === 'decl' ? init.name : init.k === 'assign' && init.target.k === 'var' ? init.target.name : null;
  const start = init.k === 'decl' ? init.init : init.k === 'assign' ? init.value : null;
  const up = loop.update[0];
  if (!v || !start || up.k !== 'assign' || up.target.k !== 'var' || up.target.name !== v) return null;
  const step = up.value.k === 'bin' && up.value.a.k === 'var' && up.value.a.name === v && up.value.b.k === 'num' && up.value.b.v === 1 ? up.value.op : null;
  const isLen = (e: Expr) => exprEq(e, len) || (e.k === 'len' && e.obj.k === 'var' && e.obj.name === arr);
  const isZero = (e: Expr) => e.k === 'num' && e.v === 0;
  const c = loop.cond;
  if (c.k !== 'bin' || c.a.k !== 'var' || c.a.name !== v) return null;
  const ascending = step === '+' && isZero(start) && c.op === '<' && isLen(c.b);
  const descending = step === '-' && start.k === 'bin' && start.op === '-' && isLen(start.a) && start.b.k === 'num' && start.b.v === 1 && c.op === '>=' && isZero(c.b);
  if (!ascending && !descending) return null;
  let ok = true;
  forEachStmt(loop.body, (s) => {
    if (s.k === 'assign' && s.target.k === 'var' && s.target.name === v) ok = false;
    if (s.k === 'decl' && s.name === v) ok = false;
  });
  for (const s of loop.body) {
    if (!touchesArray(s, arr)) continue;
    if (s.k !== 'assign' && s.k !== 'decl' && s.k !== 'expr') return null;
    for (const e of stmtExprs(s))
      forEachExpr(e, (x) => {
        if (x.k === 'idx' && x.obj.k === 'var' && x.obj.name === arr && !(x.index.k === 'var' && x.index.name === v)) ok = false;
        if (x.k === 'len' && x.obj.k === 'var' && x.obj.name === arr) ok = false;
      });
  }
  return ok ? v : null;
}

function isElem(e: Expr, arr: string, v: string): boolean {
  return e.k === 'idx' && e.obj.k === 'var' && e.obj.name === arr && e.index.k === 'var' && e.index.name === v;
}

/** the last statement of the loop body that touches the array sets `arr[v] = 0` */
function endsWithReset(loop: For, arr: string, v: string): boolean {
  const t = loop.body.filter((s) => touchesArray(s, arr));
  const s = t[t.length - 1];
  return s !== undefined && s.k === 'assign' && isElem(s.target, arr, v) && s.value.k === 'num' && s.value.v === 0;
}

/**
 * The first loop's body with the element known to be 0 until it is first written: reads give 0 and
 * the first write assigns. Null when the body does not write the element, or writes it only after it
 * hands the element to something else than a plain statement.
 */
export function writeFirst(list: Stmt[], arr: string, v: string): Stmt[] | null {
  const zeroed = (e: Expr) => foldZeros(mapExpr(e, (x) => (isElem(x, arr, v) ? { k: 'num', v: 0 } : x)));
  const out: Stmt[] = [];
  let written = false;
  for (const s of list) {
    if (written || !touchesArray(s, arr)) {
      out.push(s);
      continue;
    }
    if (s.k === 'assign' && isElem(s.target, arr, v)) {
      out.push({ k: 'assign', target: s.target, value: zeroed(s.value), loc: s.loc, comments: s.comments });
      written = true;
    } else if (s.k === 'assign') out.push({ ...s, value: zeroed(s.value) });
    else if (s.k === 'decl' && s.init) out.push({ ...s, init: zeroed(s.init) });
    else if (s.k === 'expr') out.push({ ...s, e: zeroed(s.e) });
    else return null;
  }
  return written ? out : null;
}

/** `0 + e` → `e`, `e - 0` → `e`, `0 - e` → `-e`, bottom up (exact but for the sign of a zero sum) */
export function foldZeros(e: Expr): Expr {
  if (e.k === 'bin') {
    const a = foldZeros(e.a);
    const b = foldZeros(e.b);
    const zero = (x: Expr) => x.k === 'num' && x.v === 0;
    if (e.op === '+' && zero(a)) return b;
    if ((e.op === '+' || e.op === '-') && zero(b)) return a;
    if (e.op === '-' && zero(a)) return { k: 'un', op: '-', a: b, ty: e.ty };
    return { ...e, a, b };
  }
  if (e.k === 'un') return { ...e, a: foldZeros(e.a) };
  return e;
}

/** the stores of the element after its last read in the loop body go: nothing reads them any more */
function dropDeadStores(list: Stmt[], arr: string): Stmt[] {
  let lastRead = -1;
  list.forEach((s, i) => {
    const r = s.k === 'assign' ? [s.value, ...(s.target.k === 'idx' ? [s.target.index] : [])] : stmtExprs(s);
    if (r.some((e) => readsVar(e, arr))) lastRead = i;
  });
  const storesElem = (s: Stmt) => s.k === 'assign' && s.target.k === 'idx' && s.target.obj.k === 'var' && s.target.obj.name === arr;
  return list.filter((s, i) => !(i > lastRead && storesElem(s) && !containsCall((s as Extract<Stmt, { k: 'assign' }>).value)));
}

/**
 * The last store of the element, when only later statements of this body read it, becomes a local
 * those reads use: the store itself is dead (the next iteration writes the element before reading).
 */
function forwardLastStore(list: Stmt[], arr: string, v: string, fresh: (base: string) => string): Stmt[] {
  const stores = list.map((s, i) => (s.k === 'assign' && isElem(s.target, arr, v) ? i : -1)).filter((i) => i >= 0);
  if (stores.length === 0) return list;
  const at = stores[stores.length - 1];
  if (!list.slice(at + 1).some((s) => touchesArray(s, arr))) return list;
  const st = list[at] as Extract<Stmt, { k: 'assign' }>;
  const name = fresh(`${arr}_elem`);
  const local: Expr = { k: 'var', name, ty: NUM };
  const swap = (e: Expr) => mapExpr(e, (x) => (isElem(x, arr, v) ? local : x));
  const rest = list.slice(at + 1).map((s): Stmt => {
    if (s.k === 'assign') return { ...s, target: s.target.k === 'idx' ? { ...s.target, index: swap(s.target.index) } : s.target, value: swap(s.value) };
    if (s.k === 'decl') return { ...s, init: s.init && swap(s.init) };
    if (s.k === 'expr') return { ...s, e: swap(s.e) };
    return s;
  });
  return [...list.slice(0, at), { k: 'decl', name, ty: NUM, init: st.value, konst: true, loc: st.loc, comments: st.comments }, ...rest];
}

/** `list` with the loop `from` (anywhere inside) replaced by `to` */
function replaceLoop(list: Stmt[], from: For, to: For): Stmt[] {
  return list.map((s): Stmt => (s === from ? to : mapBodies(s, (l) => replaceLoop(l, from, to))));
}
