// Loop fusion, IR → IR on generated code: two adjacent loops over the same index range become one
// when no iteration of the second loop touches what a later iteration of the first loop touches (one
// of the two writing). A reversed iteration's adjoint is a run of short loops over one array (the
// squared norm's, the triangle's, the difference's in GMM); fused, each element's adjoint is made and
// used in one pass, as in a hand-written gradient, and on short vectors the loop overhead goes.
//
// Dependences are decided on index forms only: `v + k` (the counter plus a constant, after an
// offset the loops do not change) and, inside an inner loop over `r`, the range of `r` when a bound
// is `v + k`. Anything else that both loops touch, with a write, keeps the loops apart; so do calls,
// the tape (a stack: its order matters), and scalars both loops use unless they are inner counters.
import type { Expr, Stmt } from '../ir/types.js';
import { bodiesOf, exprEq, forEachExpr, forEachStmt, hasJump, mapBodies, mapStmts, rootVar, stmtExprs, readsVar } from '../ir/util.js';
import { TAPE_ALLOCATIONS } from './adjoint/reused-shadows.js';

type For = Extract<Stmt, { k: 'for' }>;

/** storage class of a variable the compiler knows (primal or adjoint), null for generated arrays */
export type KnownStorage = (name: string) => string | null;

interface Space {
  v: string;
  start: Expr;
  cond: Extract<Expr, { k: 'bin' }>;
  down: boolean;
}

/** Every statement list of `body` with its adjacent fusible loops fused. */
export function fuseLoops(body: Stmt[], storage: KnownStorage): Stmt[] {
  const exclusive = exclusiveArrays(body);
  const visit = (list: Stmt[]): Stmt[] => {
    const out: Stmt[] = [];
    for (const s0 of list) {
      const s = mapBodies(s0, visit);
      const prev = out[out.length - 1];
      if (!prev || prev.k !== 'for' || s.k !== 'for') {
        out.push(s);
        continue;
      }
      const fused = fuse(prev, s, body, storage, exclusive);
      const split = fused ? null : fuseSplitting(prev, s, body, storage, exclusive);
      if (fused) out[out.length - 1] = fused;
      else if (split) out.splice(out.length - 1, 1, ...split);
      else out.push(s);
    }
    return out;
  };
  return visit(body);
}

/** a loop's counter, start, condition and direction, when it counts by one and its body never sets the counter */
export function space(loop: For): Space | null {
  if (loop.label || loop.init.length !== 1 || loop.update.length !== 1 || !loop.cond || loop.cond.k !== 'bin') return null;
  const init = loop.init[0];
  const v = init.k === 'assign' && init.target.k === 'var' ? init.target.name : init.k === 'decl' ? init.name : null;
  const start = init.k === 'assign' ? init.value : init.k === 'decl' ? init.init : null;
  if (!v || !start || readsVar(start, v)) return null;
  const up = loop.update[0];
  if (up.k !== 'assign' || up.target.k !== 'var' || up.target.name !== v) return null;
  const u = up.value;
  if (u.k !== 'bin' || u.a.k !== 'var' || u.a.name !== v || u.b.k !== 'num' || u.b.v !== 1 || (u.op !== '+' && u.op !== '-')) return null;
  const c = loop.cond;
  if (c.a.k !== 'var' || c.a.name !== v || readsVar(c.b, v)) return null;
  let assigned = false;
  forEachStmt(loop.body, (x) => {
    if ((x.k === 'assign' && x.target.k === 'var' && x.target.name === v) || (x.k === 'decl' && x.name === v)) assigned = true;
  });
  return assigned ? null : { v, start, cond: c, down: u.op === '-' };
}

function fuse(l1: For, l2: For, root: Stmt[], storage: KnownStorage, exclusive: Set<string>): For | null {
  const body2 = joinable(l1, l2, l2.body, root, storage, exclusive, false);
  return body2 ? { ...l1, body: [...l1.body, ...body2] } : null;
}

/**
 * The second loop's statements that can run inside the first loop's iterations, moved there, and the
 * rest left in a loop of their own after it (loop distribution, then fusion): the reset of an adjoint
 * array that the first loop reads further on (`zb[j] = 0` after a triangle reads `zb[r]`, r > j) keeps
 * the whole second loop apart otherwise. Moved statements run before every kept one, so a moved
 * statement that follows a kept one in the body may not touch what the kept one touches (one writing).
 */
function fuseSplitting(l1: For, l2: For, root: Stmt[], storage: KnownStorage, exclusive: Set<string>): [For, For] | null {
  const s2 = space(l2);
  if (!s2 || hasJumpOrCall(l2.body) || l2.body.some((x) => x.k === 'decl')) return null;
  const stay = new Set<number>();
  l2.body.forEach((x, i) => {
    if (!joinable(l1, l2, [x], root, storage, exclusive, true)) stay.add(i);
  });
  if (stay.size === 0 || stay.size === l2.body.length) return null;
  // a statement after a kept one that shares an array with it (one writing) is kept too
  for (let i = 0; i < l2.body.length; i++) {
    if (!stay.has(i)) continue;
    for (let j = i + 1; j < l2.body.length; j++) if (!stay.has(j) && sharesWrittenArray(l2.body[i], l2.body[j], storage, exclusive)) stay.add(j);
  }
  const moved = l2.body.filter((_, i) => !stay.has(i));
  const kept = l2.body.filter((_, i) => stay.has(i));
  if (moved.length === 0 || !scalarsIndependent(moved, kept)) return null;
  // a moved statement before a kept one keeps its order with it only where iterations meet in order
  if (!arraysIndependent(moved, kept, s2, storage, exclusive)) return null;
  const body2 = joinable(l1, l2, moved, root, storage, exclusive, true);
  return body2 ? [{ ...l1, body: [...l1.body, ...body2] }, { ...l2, body: kept }] : null;
}

/** whether two statements of one iteration touch one array (a write among them), by root or storage */
function sharesWrittenArray(a: Stmt, b: Stmt, storage: KnownStorage, exclusive: Set<string>): boolean {
  const xs = accesses([a], '', new Set());
  const ys = accesses([b], '', new Set());
  return xs.some((x) => ys.some((y) => (x.write || y.write) && !(x.inc && y.inc && x.root !== y.root) && mayAlias(x.root, y.root, storage, exclusive)));
}

/**
 * `body2` (statements of the second loop) renamed to the first loop's counter, when they can run at the
 * end of each of its iterations; null otherwise. `distributed`: the second loop stays (with what is not
 * moved), so its counter's value after it does not change.
 */
function joinable(l1: For, l2: For, body2In: Stmt[], root: Stmt[], storage: KnownStorage, exclusive: Set<string>, distributed: boolean): Stmt[] | null {
  const s1 = space(l1);
  const s2 = space(l2);
  if (!s1 || !s2 || s1.down !== s2.down || s1.cond.op !== s2.cond.op) return null;
  if (!exprEq(s1.start, s2.start) || !exprEq(s1.cond.b, s2.cond.b)) return null;
  // equal texts are equal values only without effects: two `tape.popI()` trip counts are two different counts
  if ([s1.start, s1.cond.b].some(hasEffects)) return null;
  // counters both declared by their loops, or both variables of the function
  if (l1.init[0].k !== l2.init[0].k) return null;
  const scoped = l1.init[0].k === 'decl';
  // the bound must not change inside either loop
  const written = new Set([...assignedScalars(l1.body), ...assignedScalars(l2.body)]);
  if ([...varsOf(s1.start), ...varsOf(s1.cond.b)].some((n) => written.has(n))) return null;
  if (hasJumpOrCall(l1.body) || hasJumpOrCall(body2In)) return null;
  if (s1.v !== s2.v && (mentionsStmts(body2In, s1.v) || (!scoped && !distributed && !deadOutside(root, l2, s2.v)))) return null;
  const body2 = s1.v === s2.v ? body2In : mapStmts(body2In, (e) => (e.k === 'var' && e.name === s2.v ? { ...e, name: s1.v } : e));
  // block-scoped names of the two bodies share one block once fused
  // (and a name one body declares must not be one the other reads from outside: it would resolve to
  // the declaration once the bodies share a block)
  const declared = (list: Stmt[]) => list.filter((x) => x.k === 'decl').map((x) => (x as { name: string }).name);
  if (declared(l1.body).some((n) => mentionsStmts(body2, n)) || declared(body2).some((n) => mentionsStmts(l1.body, n))) return null;
  if (!scalarsIndependent(l1.body, body2) || !arraysIndependent(l1.body, body2, s1, storage, exclusive)) return null;
  return body2;
}

function mentionsStmts(list: Stmt[], name: string): boolean {
  let hit = false;
  forEachStmt(list, (x) => {
    if (x.k === 'decl' && x.name === name) hit = true;
    for (const e of stmtExprs(x)) if (readsVar(e, name)) hit = true;
  });
  return hit;
}

function varsOf(e: Expr): string[] {
  const out: string[] = [];
  forEachExpr(e, (x) => {
    if (x.k === 'var') out.push(x.name);
  });
  return out;
}

function assignedScalars(list: Stmt[]): Set<string> {
  const out = new Set<string>();
  forEachStmt(list, (x) => {
    if (x.k === 'assign' && x.target.k === 'var') out.add(x.target.name);
  });
  return out;
}

/** a call, or an intrinsic other than Math's (the tape's pops, `pop`): evaluating it twice is not reading one value twice */
function hasEffects(e: Expr): boolean {
  let hit = false;
  forEachExpr(e, (y) => {
    if (y.k === 'call' || y.k === 'raw' || (y.k === 'intr' && !y.fn.startsWith('Math.'))) hit = true;
  });
  return hit;
}

function hasJumpOrCall(list: Stmt[]): boolean {
  let hit = hasJump(list);
  forEachStmt(list, (x) => {
    for (const e of stmtExprs(x))
      forEachExpr(e, (y) => {
        // (an intrinsic other than Math's may change an array in ways the index analysis does not see:
        // `M.push(row)`, `a.fill(0)`, the tape's stacks)
        if (y.k === 'call' || y.k === 'raw' || (y.k === 'intr' && !y.fn.startsWith('Math.'))) hit = true;
      });
  });
  return hit;
}

/** the second loop's counter is read nowhere but in loops that set it first (its exit value is unused) */
function deadOutside(root: Stmt[], loop: For, v: string): boolean {
  let ok = true;
  const walk = (list: Stmt[]): void => {
    for (const s of list) {
      if (s === loop) continue;
      if (s.k === 'for' && s.init.length === 1 && s.init[0].k === 'assign' && s.init[0].target.k === 'var' && s.init[0].target.name === v) {
        if (readsVar(s.init[0].value, v)) ok = false;
        continue;
      }
      if (s.k === 'assign' && s.target.k === 'var' && s.target.name === v && !readsVar(s.value, v)) continue;
      for (const e of stmtExprs(s)) if (readsVar(e, v)) ok = false;
      if (s.k === 'for') {
        walk(s.init);
        walk(s.update);
      }
      for (const sub of bodiesOf(s)) walk(sub);
    }
  };
  walk(root);
  return ok;
}

/**
 * Scalars: one written by a body may not be used by the other, except an inner loop's counter that
 * every use in both bodies sets first (block-scoped declarations are per iteration and never shared).
 */
function scalarsIndependent(b1: Stmt[], b2: Stmt[]): boolean {
  const w1 = assignedScalars(b1);
  const w2 = assignedScalars(b2);
  for (const [w, other, own] of [
    [w1, b2, b1],
    [w2, b1, b2],
  ] as const) {
    for (const n of w) {
      if (!mentionsStmts(other, n)) continue;
      if (!onlyInnerCounter(own, n) || !onlyInnerCounter(other, n)) return false;
    }
  }
  return true;
}

function onlyInnerCounter(list: Stmt[], n: string): boolean {
  for (const s of list) {
    if (s.k === 'for' && s.init.length === 1 && s.init[0].k === 'assign' && s.init[0].target.k === 'var' && s.init[0].target.name === n && !readsVar(s.init[0].value, n)) continue;
    if (s.k === 'decl' && s.name === n) return false;
    for (const e of stmtExprs(s)) if (readsVar(e, n)) return false;
    for (const sub of bodiesOf(s)) if (!onlyInnerCounter(sub, n)) return false;
    if (s.k === 'for' && (!onlyInnerCounter(s.init, n) || !onlyInnerCounter(s.update, n))) return false;
  }
  return true;
}

/**
 * Arrays allocated fresh by this function (`new Float64Array`, `zerosLike` of a flat array, a tape
 * buffer) that hold numbers and are only ever indexed, measured or handed to the tape: no other name
 * reaches their memory.
 */
export function exclusiveArrays(body: Stmt[]): Set<string> {
  const defs = new Map<string, number>();
  const candidates = new Set<string>();
  forEachStmt(body, (s) => {
    const name = s.k === 'decl' && s.init ? s.name : s.k === 'assign' && s.target.k === 'var' ? s.target.name : null;
    const value = s.k === 'decl' ? s.init : s.k === 'assign' ? s.value : null;
    if (!name || !value) return;
    defs.set(name, (defs.get(name) ?? 0) + 1);
    const flat = value.k === 'alloc' || (value.k === 'intr' && (TAPE_ALLOCATIONS.has(value.fn) || value.fn === 'zerosLike'));
    const ty = value.k === 'alloc' || value.k === 'intr' ? value.ty : null;
    if (flat && ty && ty.k === 'arr' && ty.elem.k === 'num') candidates.add(name);
  });
  for (const n of candidates) if (defs.get(n) !== 1) candidates.delete(n);
  if (candidates.size === 0) return candidates;
  // one walk for all candidates: per expression, each occurrence of a candidate must be an indexed or
  // measured array, a tape operation's argument or the assigned variable itself. Each such use is one
  // occurrence, so no expression has more of them than occurrences, and the totals tell: a name with
  // as many uses as occurrences over the whole body has them in every expression
  const occurrences = new Map<string, number>();
  const uses = new Map<string, number>();
  const count = (m: Map<string, number>, n: string) => m.set(n, (m.get(n) ?? 0) + 1);
  forEachStmt(body, (s) => {
    for (const e of stmtExprs(s)) {
      forEachExpr(e, (x) => {
        if ((x.k === 'idx' || x.k === 'len') && x.obj.k === 'var' && candidates.has(x.obj.name)) count(uses, x.obj.name);
        if (x.k === 'intr' && (x.fn === 'tape.freeF' || x.fn === 'tape.giveBack' || x.fn === 'tape.pushR')) for (const a of x.args) if (a.k === 'var' && candidates.has(a.name)) count(uses, a.name);
        if (x.k === 'var' && candidates.has(x.name)) count(occurrences, x.name);
      });
      if (s.k === 'assign' && s.target.k === 'var' && e === s.target && candidates.has(s.target.name)) count(uses, s.target.name);
    }
  });
  const out = new Set<string>();
  for (const n of candidates) if ((occurrences.get(n) ?? 0) === (uses.get(n) ?? 0)) out.add(n);
  return out;
}

/** where an access lands relative to the counter: `v + k` exactly, a range `[v + lo, v + hi]`, or unknown */
type Where = { k: 'at'; off: string; d: number } | { k: 'range'; off: string; lo: number | null; hi: number | null } | { k: 'unknown' };

interface Access {
  /** the array: a variable, or a variable's field (`selfb.lower`) */
  root: string;
  write: boolean;
  /** a write `a[i] += e` / `a[i] -= e` whose only read of `a` is its own element: increments of two arrays commute */
  inc: boolean;
  where: Where;
}

function arraysIndependent(b1: Stmt[], b2: Stmt[], sp: Space, storage: KnownStorage, exclusive: Set<string>): boolean {
  // an offset is the same in both loops only if neither body assigns or declares it
  const varying = new Set([...assignedScalars(b1), ...assignedScalars(b2)]);
  forEachStmt([...b1, ...b2], (x) => {
    if (x.k === 'decl') varying.add(x.name);
  });
  const a1 = accesses(b1, sp.v, varying);
  const a2 = accesses(b2, sp.v, varying);
  for (const x of a1)
    for (const y of a2) {
      if (!x.write && !y.write) continue;
      if (x.root !== y.root) {
        // (two increments of arrays that may be one give the same sums in either order: bit for bit
        // unless they are one array at run time, and then up to rounding)
        if (!(x.inc && y.inc) && mayAlias(x.root, y.root, storage, exclusive)) return false;
        continue;
      }
      if (!ordered(x.where, y.where, sp.down)) return false;
    }
  return true;
}

/**
 * Whether two different arrays may be one: not when one is exclusive or their storage classes differ.
 * A field's array (`selfb.lower`) may be any array of its side (a primal object's fields hold primal
 * arrays, an adjoint's hold adjoint arrays: `this.mean = mean` in a constructor makes a field and a
 * parameter one array); it is apart only from the other side, and from a scratch field's one alias.
 */
export function mayAlias(r1: string, r2: string, storage: KnownStorage, exclusive: ReadonlySet<string>): boolean {
  if (r1 === r2) return true;
  if (exclusive.has(r1) || exclusive.has(r2)) return false;
  const f1 = r1.includes('.');
  const f2 = r2.includes('.');
  const c1 = storage(f1 ? r1.slice(0, r1.indexOf('.')) : r1);
  const c2 = storage(f2 ? r2.slice(0, r2.indexOf('.')) : r2);
  if (c1 === null || c2 === null) return true;
  if (!f1 && !f2) return c1 === c2;
  const adjoint = (c: string) => c.endsWith("'b");
  if (adjoint(c1) !== adjoint(c2)) return false;
  // (a scratch field's array, `scratch Class.field`, is no other field's)
  const scratchField = (c: string) => (c.startsWith('scratch ') ? c.replace(/'b$/, '').split('.').pop()! : null);
  const [v, fieldRoot] = f1 ? [c2, r1] : [c1, r2];
  const own = f1 && f2 ? null : scratchField(v);
  return own === null || own === fieldRoot.slice(fieldRoot.indexOf('.') + 1);
}

/**
 * Whether every element the first loop's iteration i and the second loop's iteration j both touch has
 * j at or after i in the loop's order (then fusing keeps the first loop's access first).
 */
function ordered(x: Where, y: Where, down: boolean): boolean {
  if (x.k === 'unknown' || y.k === 'unknown' || x.off !== y.off) return false;
  // the element i + dx meets j + dy when j = i + dx - dy; "after" is j <= i going down, j >= i going up
  if (x.k === 'at' && y.k === 'at') return down ? x.d <= y.d : x.d >= y.d;
  if (x.k === 'at' && y.k === 'range') return down ? y.lo !== null && y.lo >= x.d : y.hi !== null && y.hi <= x.d;
  if (x.k === 'range' && y.k === 'at') return down ? x.hi !== null && x.hi <= y.d : x.lo !== null && x.lo >= y.d;
  return false;
}

function accesses(list: Stmt[], v: string, varying: Set<string>): Access[] {
  const out: Access[] = [];
  const ranges = new Map<string, { lo: number | null; hi: number | null }>();
  const scan = (stmts: Stmt[]): void => {
    for (const s of stmts) {
      // (a field is an element of unknown place: `p.x`, `pts[j].x`)
      const unknown = (e: Expr, write: boolean): Access => ({ root: rootVar(e) ?? '?', write, inc: false, where: { k: 'unknown' } });
      // (a field read is a read of its own: `self.logDetQ`, `pts[j].x`; an indexed array field is read by element)
      const readsIn = (e: Expr) => {
        const indexed = new Set<Expr>();
        forEachExpr(e, (x) => {
          if (x.k === 'idx') {
            indexed.add(x.obj);
            out.push(access(x, false, false, v, ranges, varying));
          } else if (x.k === 'field' && !indexed.has(x)) out.push({ ...unknown(x, false), root: arrayPath(x) ?? rootVar(x) ?? '?' });
        });
      };
      if (s.k === 'assign' && s.target.k !== 'var') {
        if (s.target.k === 'idx') {
          const inc = increment(s);
          out.push(access(s.target, true, inc !== null, v, ranges, varying));
          readsIn(s.target.index);
          readsIn(inc ?? s.value);
          // (the field holding the array is read, not written: `selfb.lower[t] += …` is an access of `selfb.lower`)
          if (arrayPath(s.target.obj) === null) readsIn(s.target.obj);
        } else {
          out.push({ ...unknown(s.target, true), root: arrayPath(s.target) ?? rootVar(s.target) ?? '?' });
          readsIn(s.value);
          readsIn(s.target.obj);
        }
      } else for (const e of stmtExprs(s)) readsIn(e);
      if (s.k === 'for') {
        scan(s.init);
        scan(s.update);
        const r = innerRange(s, v);
        const sp = space(s);
        if (sp && r) ranges.set(sp.v, r);
        scan(s.body);
        if (sp) ranges.delete(sp.v);
      } else for (const sub of bodiesOf(s)) scan(sub);
    }
  };
  scan(list);
  return out;
}

/** the increment's addend when `s` is `a[i] += e` or `a[i] -= e` and `e` does not mention `a`, else null */
function increment(s: Extract<Stmt, { k: 'assign' }>): Expr | null {
  const v = s.value;
  if (v.k !== 'bin' || (v.op !== '+' && v.op !== '-') || !exprEq(v.a, s.target)) return null;
  const root = rootVar(s.target);
  return root !== null && !readsVar(v.b, root) ? v.b : null;
}

/** `a` or `o.f` (an array held by a variable or by a variable's field), else null */
export function arrayPath(e: Expr): string | null {
  if (e.k === 'var') return e.name;
  if (e.k === 'field' && e.obj.k === 'var') return `${e.obj.name}.${e.name}`;
  return null;
}

function access(e: Extract<Expr, { k: 'idx' }>, write: boolean, inc: boolean, v: string, ranges: Map<string, { lo: number | null; hi: number | null }>, varying: Set<string>): Access {
  const path = arrayPath(e.obj);
  const root = path ?? rootVar(e) ?? '?';
  if (path === null) return { root, write, inc, where: { k: 'unknown' } };
  const lin = linear(e.index);
  if (!lin) return { root, write, inc, where: { k: 'unknown' } };
  const counters = lin.vars.filter((n) => n === v || ranges.has(n));
  const off = lin.vars.filter((n) => !counters.includes(n)).sort().join('+');
  if (counters.length !== 1 || lin.vars.some((n) => !counters.includes(n) && varying.has(n))) return { root, write, inc, where: { k: 'unknown' } };
  const c = counters[0];
  if (c === v) return { root, write, inc, where: { k: 'at', off, d: lin.k } };
  const r = ranges.get(c)!;
  return { root, write, inc, where: { k: 'range', off, lo: r.lo === null ? null : r.lo + lin.k, hi: r.hi === null ? null : r.hi + lin.k } };
}

/** `a + b - 1 + c` as variables added once each plus a constant; null for anything else */
function linear(e: Expr): { vars: string[]; k: number } | null {
  if (e.k === 'num') return { vars: [], k: e.v };
  if (e.k === 'var') return { vars: [e.name], k: 0 };
  if (e.k === 'bin' && (e.op === '+' || e.op === '-')) {
    const a = linear(e.a);
    if (!a) return null;
    if (e.op === '-') return e.b.k === 'num' ? { vars: a.vars, k: a.k - e.b.v } : null;
    const b = linear(e.b);
    return b ? { vars: [...a.vars, ...b.vars], k: a.k + b.k } : null;
  }
  return null;
}

/** the values an inner loop's counter takes, relative to the outer counter `v` where a bound is `v + k` */
function innerRange(loop: For, v: string): { lo: number | null; hi: number | null } | null {
  const sp = space(loop);
  if (!sp) return null;
  const rel = (e: Expr): number | null => {
    const l = linear(e);
    return l && l.vars.length === 1 && l.vars[0] === v ? l.k : null;
  };
  const start = rel(sp.start);
  const bound = rel(sp.cond.b);
  const op = sp.cond.op;
  if (sp.down) {
    const lo = bound === null ? null : op === '>=' ? bound : op === '>' ? bound + 1 : null;
    return op === '>=' || op === '>' ? { lo, hi: start } : null;
  }
  const hi = bound === null ? null : op === '<' ? bound - 1 : op === '<=' ? bound : null;
  return op === '<' || op === '<=' ? { lo: start, hi } : null;
}
