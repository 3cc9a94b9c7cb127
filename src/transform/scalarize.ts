// Scalar replacement in the backward sweep's innermost loops: an element whose index does not change in
// the loop is read once before it (`const dc = diff[c]`), and an element the loop only accumulates into
// (`diffb[c] += lk[t] * qdiffb[r]`) lives in a local for the loop's duration and is written back after
// it — the same operations in the same order, without a load and a store per iteration that the JIT
// cannot remove (it cannot prove that `lkb` and `diffb` are different arrays).
import type { Expr, Stmt, Ty } from '../ir/types.js';
import { exprEq, forEachExpr, forEachStmt, mapExpr, stmtExprs, tyOf } from '../ir/util.js';
import type { Storage } from './merge.js';

const NUM: Ty = { k: 'num' };

/** `stmts` with invariant elements of innermost loops held in locals */
export function scalarizeLoops(stmts: Stmt[], storage: Storage, fresh: (base: string) => string): Stmt[] {
  const out: Stmt[] = [];
  for (const s of stmts) {
    switch (s.k) {
      case 'for':
        if (innermost(s.body)) out.push(...scalarizeLoop(s, storage, fresh));
        else out.push({ ...s, body: scalarizeLoops(s.body, storage, fresh) });
        break;
      case 'while':
      case 'do':
      case 'block':
        out.push({ ...s, body: scalarizeLoops(s.body, storage, fresh) });
        break;
      case 'if':
        out.push({ ...s, then: scalarizeLoops(s.then, storage, fresh), else: scalarizeLoops(s.else, storage, fresh) });
        break;
      default:
        out.push(s);
    }
  }
  return out;
}

function innermost(body: Stmt[]): boolean {
  let loops = false;
  forEachStmt(body, (x) => {
    if (x.k === 'for' || x.k === 'while' || x.k === 'do' || x.k === 'switch' || x.k === 'break' || x.k === 'continue' || x.k === 'return' || x.k === 'throw') loops = true;
  });
  return !loops;
}

type Idx = Extract<Expr, { k: 'idx' }>;

function scalarizeLoop(loop: Extract<Stmt, { k: 'for' }>, storage: Storage, fresh: (base: string) => string): Stmt[] {
  // what the loop assigns (its index included) and whether it has effects we cannot see through
  const assigned = new Set<string>();
  let opaque = false;
  forEachStmt([...loop.update, ...loop.body], (x) => {
    if (x.k === 'decl') assigned.add(x.name);
    if (x.k === 'assign' && x.target.k === 'var') assigned.add(x.target.name);
    for (const e of stmtExprs(x))
      forEachExpr(e, (y) => {
        if (y.k === 'call' || (y.k === 'intr' && !y.fn.startsWith('Math.'))) opaque = true;
      });
  });
  if (opaque) return [loop];
  // every element access of the body, with the storage class of its array
  const accesses: { e: Idx; cls: string; write: boolean }[] = [];
  // (an array in a field, `selfb.lower[t]`, is of its instance's class: the loop stores no field)
  const classOf = (obj: Expr): string | null => {
    let o = obj;
    while (o.k === 'field') o = o.obj;
    return o.k === 'var' && !assigned.has(o.name) ? storage(o.name) : null;
  };
  const noteReads = (e: Expr) =>
    forEachExpr(e, (y) => {
      if (y.k !== 'idx') return;
      const cls = classOf(y.obj);
      if (cls === null) opaque = true;
      else accesses.push({ e: y, cls, write: false });
    });
  forEachStmt(loop.body, (x) => {
    if (x.k === 'assign' && x.target.k === 'idx') {
      const cls = classOf(x.target.obj);
      if (cls === null) opaque = true;
      else accesses.push({ e: x.target, cls, write: true });
      noteReads(x.target.index);
      noteReads(x.value);
    } else if (x.k === 'assign' && x.target.k === 'field') opaque = true;
    else for (const e of stmtExprs(x)) noteReads(e);
  });
  if (opaque) return [loop];
  const [pre, scalarized, post] = replaceInvariantElements(loop, accesses, assigned, fresh);
  return [...pre, { ...scalarized, body: bindRepeatedLoads(scalarized.body, storage, fresh) }, ...post];
}

function replaceInvariantElements(
  loop: Extract<Stmt, { k: 'for' }>,
  accesses: { e: Idx; cls: string; write: boolean }[],
  assigned: Set<string>,
  fresh: (base: string) => string,
): [Stmt[], Extract<Stmt, { k: 'for' }>, Stmt[]] {
  const invariant = (e: Expr) => {
    let ok = true;
    forEachExpr(e, (y) => {
      if (y.k === 'var' && assigned.has(y.name)) ok = false;
      if (y.k === 'idx' || y.k === 'call' || y.k === 'intr') ok = false;
    });
    return ok;
  };
  const chosen: { e: Idx; name: string; write: boolean }[] = [];
  for (const a of accesses) {
    if (chosen.some((c) => exprEq(c.e, a.e)) || !invariant(a.e.index)) continue;
    const same = accesses.filter((b) => b.cls === a.cls);
    // the class is touched only at this element
    if (!same.every((b) => exprEq(b.e, a.e))) continue;
    const written = same.some((b) => b.write);
    // a written element is kept in a local only in a typed array (a write-back of an element the
    // loop never touched, out of bounds, is then a no-op) of float64s (a local would skip the rounding
    // of each store into a Float32Array or an integer array)
    const objTy = tyOf(a.e.obj);
    if (written && !(objTy.k === 'arr' && objTy.typed && !objTy.ctor)) continue;
    chosen.push({ e: a.e, name: fresh(written ? 'acc' : 'elem'), write: written });
  }
  if (!chosen.length) return [[], loop, []];
  const swap = (e: Expr): Expr =>
    mapExpr(e, (y) => {
      const c = y.k === 'idx' ? chosen.find((k) => exprEq(k.e, y)) : undefined;
      return c ? { k: 'var', name: c.name, ty: NUM } : y;
    });
  const body = rewrite(loop.body, swap);
  const before: Stmt[] = chosen.map((c) => ({ k: 'decl', name: c.name, ty: NUM, init: c.e, konst: !c.write }));
  const after: Stmt[] = chosen.filter((c) => c.write).map((c) => ({ k: 'assign', target: c.e, value: { k: 'var', name: c.name, ty: NUM } }));
  return [before, { ...loop, body }, after];
}

/**
 * One iteration reading the same element in several statements (`lkb[t] += elem * qdiffb[r]` then
 * `acc += lk[t] * qdiffb[r]`) loads it once into a local: the JIT reloads it after the store between
 * them, not knowing that the two arrays differ. Only reads in statements that always run are replaced,
 * up to the first statement that may write the element's storage class or change its index.
 */
function bindRepeatedLoads(body: Stmt[], storage: Storage, fresh: (base: string) => string): Stmt[] {
  const out = [...body];
  const plain = (x: Stmt) => x.k === 'assign' || x.k === 'decl' || x.k === 'expr';
  const readsOf = (x: Stmt, e: Idx): number => {
    let n = 0;
    const exprs = x.k === 'assign' ? (x.target.k === 'idx' ? [x.target.index, x.value] : [x.value]) : stmtExprs(x);
    for (const r of exprs)
      forEachExpr(r, (y) => {
        if (y.k === 'idx' && exprEq(y, e)) n++;
      });
    return n;
  };
  // may `x` write an element of class `cls` or a variable the index reads?
  const barrier = (x: Stmt, cls: string, indexVars: Set<string>): boolean => {
    let hit = false;
    forEachStmt([x], (y) => {
      if (y.k === 'decl' && indexVars.has(y.name)) hit = true;
      if (y.k === 'assign') {
        if (y.target.k === 'var' && indexVars.has(y.target.name)) hit = true;
        if (y.target.k === 'idx' && (y.target.obj.k !== 'var' || storage(y.target.obj.name) === cls)) hit = true;
        if (y.target.k === 'field') hit = true;
      }
    });
    return hit;
  };
  for (let i = 0; i < out.length; i++) {
    if (!plain(out[i])) continue;
    const candidates: Idx[] = [];
    for (const r of stmtExprs(out[i]))
      forEachExpr(r, (y) => {
        if (y.k === 'idx' && y.obj.k === 'var' && !candidates.some((c) => exprEq(c, y))) candidates.push(y);
      });
    for (const e of candidates) {
      if (readsOf(out[i], e) === 0) continue; // only the target of a store
      const cls = storage((e.obj as Extract<Expr, { k: 'var' }>).name);
      const indexVars = new Set<string>();
      forEachExpr(e.index, (y) => {
        if (y.k === 'var') indexVars.add(y.name);
      });
      // statements i..last read it before anything may change it (a statement that writes it still
      // evaluates its right-hand side first)
      let last = i;
      let reads = readsOf(out[i], e);
      if (!barrier(out[i], cls, indexVars)) {
        for (let j = i + 1; j < out.length; j++) {
          if (plain(out[j]) && readsOf(out[j], e) > 0) {
            reads += readsOf(out[j], e);
            last = j;
          }
          if (barrier(out[j], cls, indexVars) || !plain(out[j])) break;
        }
      }
      if (reads < 2) continue;
      const name = fresh(`${(e.obj as Extract<Expr, { k: 'var' }>).name}_elem`);
      const v: Expr = { k: 'var', name, ty: NUM };
      const swap = (x: Expr) => mapExpr(x, (y) => (y.k === 'idx' && exprEq(y, e) ? v : y));
      for (let j = i; j <= last; j++) {
        const x = out[j];
        if (x.k === 'assign') out[j] = { ...x, target: x.target.k === 'idx' ? { ...x.target, index: swap(x.target.index) } : x.target, value: swap(x.value) };
        else out[j] = rewrite([x], swap)[0];
      }
      out.splice(i, 0, { k: 'decl', name, ty: NUM, init: e, konst: true });
      i++;
    }
  }
  return out;
}

function rewrite(ss: Stmt[], swap: (e: Expr) => Expr): Stmt[] {
  return ss.map((s) => {
    switch (s.k) {
      case 'decl':
        return { ...s, init: s.init ? swap(s.init) : null };
      case 'assign': {
        const t = swap(s.target);
        return { ...s, target: t as typeof s.target, value: swap(s.value) };
      }
      case 'expr':
        return { ...s, e: swap(s.e) };
      case 'if':
        return { ...s, c: swap(s.c), then: rewrite(s.then, swap), else: rewrite(s.else, swap) };
      case 'block':
        return { ...s, body: rewrite(s.body, swap) };
      default:
        return s;
    }
  });
}
