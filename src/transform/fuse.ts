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
import { bodiesOf, exprEq, forEachExpr, forEachStmt, hasJump, mapBodies, mapStmts, rootVar, stmtExprs, varsRead } from '../ir/util.js';
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
      const fused = prev && prev.k === 'for' && s.k === 'for' ? fuse(prev, s, body, storage, exclusive) : null;
      if (fused) out[out.length - 1] = fused;
      else out.push(s);
    }
    return out;
  };
  return visit(body);
}

function space(loop: For): Space | null {
  if (loop.label || loop.init.length !== 1 || loop.update.length !== 1 || !loop.cond || loop.cond.k !== 'bin') return null;
  const init = loop.init[0];
  const v = init.k === 'assign' && init.target.k === 'var' ? init.target.name : init.k === 'decl' ? init.name : null;
  const start = init.k === 'assign' ? init.value : init.k === 'decl' ? init.init : null;
  if (!v || !start || varsRead(start).has(v)) return null;
  const up = loop.update[0];
  if (up.k !== 'assign' || up.target.k !== 'var' || up.target.name !== v) return null;
  const u = up.value;
  if (u.k !== 'bin' || u.a.k !== 'var' || u.a.name !== v || u.b.k !== 'num' || u.b.v !== 1 || (u.op !== '+' && u.op !== '-')) return null;
  const c = loop.cond;
  if (c.a.k !== 'var' || c.a.name !== v || varsRead(c.b).has(v)) return null;
  let assigned = false;
  forEachStmt(loop.body, (x) => {
    if ((x.k === 'assign' && x.target.k === 'var' && x.target.name === v) || (x.k === 'decl' && x.name === v)) assigned = true;
  });
  return assigned ? null : { v, start, cond: c, down: u.op === '-' };
}

function fuse(l1: For, l2: For, root: Stmt[], storage: KnownStorage, exclusive: Set<string>): For | null {
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
  if (hasJumpOrCall(l1.body) || hasJumpOrCall(l2.body)) return null;
  if (s1.v !== s2.v && (mentionsStmts(l2.body, s1.v) || (!scoped && !deadOutside(root, l2, s2.v)))) return null;
  const body2 = s1.v === s2.v ? l2.body : mapStmts(l2.body, (e) => (e.k === 'var' && e.name === s2.v ? { ...e, name: s1.v } : e));
  // block-scoped names of the two bodies share one block once fused
  // (and a name one body declares must not be one the other reads from outside: it would resolve to
  // the declaration once the bodies share a block)
  const declared = (list: Stmt[]) => list.filter((x) => x.k === 'decl').map((x) => (x as { name: string }).name);
  if (declared(l1.body).some((n) => mentionsStmts(body2, n)) || declared(body2).some((n) => mentionsStmts(l1.body, n))) return null;
  if (!scalarsIndependent(l1.body, body2) || !arraysIndependent(l1.body, body2, s1, storage, exclusive)) return null;
  return { ...l1, body: [...l1.body, ...body2] };
}

function mentionsStmts(list: Stmt[], name: string): boolean {
  let hit = false;
  forEachStmt(list, (x) => {
    if (x.k === 'decl' && x.name === name) hit = true;
    for (const e of stmtExprs(x)) if (varsRead(e).has(name)) hit = true;
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
        if (varsRead(s.init[0].value).has(v)) ok = false;
        continue;
      }
      if (s.k === 'assign' && s.target.k === 'var' && s.target.name === v && !varsRead(s.value).has(v)) continue;
      for (const e of stmtExprs(s)) if (varsRead(e).has(v)) ok = false;
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
    if (s.k === 'for' && s.init.length === 1 && s.init[0].k === 'assign' && s.init[0].target.k === 'var' && s.init[0].target.name === n && !varsRead(s.init[0].value).has(n)) continue;
    if (s.k === 'decl' && s.name === n) return false;
    for (const e of stmtExprs(s)) if (varsRead(e).has(n)) return false;
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
function exclusiveArrays(body: Stmt[]): Set<string> {
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
  const out = new Set<string>();
  for (const n of candidates) {
    if (defs.get(n) !== 1) continue;
    let ok = true;
    forEachStmt(body, (s) => {
      for (const e of stmtExprs(s)) {
        let allowed = 0;
        let all = 0;
        forEachExpr(e, (x) => {
          if ((x.k === 'idx' || x.k === 'len') && x.obj.k === 'var' && x.obj.name === n) allowed++;
          if (x.k === 'intr' && (x.fn === 'tape.freeF' || x.fn === 'tape.giveBack' || x.fn === 'tape.pushR')) for (const a of x.args) if (a.k === 'var' && a.name === n) allowed++;
          if (x.k === 'var' && x.name === n) all++;
        });
        const isDef = (s.k === 'assign' && s.target.k === 'var' && s.target.name === n && e === s.target) || false;
        if (all !== allowed + (isDef ? 1 : 0)) ok = false;
      }
    });
    if (ok) out.add(n);
  }
  return out;
}

/** where an access lands relative to the counter: `v + k` exactly, a range `[v + lo, v + hi]`, or unknown */
type Where = { k: 'at'; off: string; d: number } | { k: 'range'; off: string; lo: number | null; hi: number | null } | { k: 'unknown' };

interface Access {
  root: string;
  write: boolean;
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
        if (exclusive.has(x.root) || exclusive.has(y.root)) continue;
        const cx = storage(x.root);
        const cy = storage(y.root);
        if (cx !== null && cy !== null && cx !== cy) continue;
        return false;
      }
      if (!ordered(x.where, y.where, sp.down)) return false;
    }
  return true;
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
      const unknown = (e: Expr, write: boolean): Access => ({ root: rootVar(e) ?? '?', write, where: { k: 'unknown' } });
      const readsIn = (e: Expr) =>
        forEachExpr(e, (x) => {
          if (x.k === 'idx') out.push(access(x, false, v, ranges, varying));
          else if (x.k === 'field') out.push(unknown(x, false));
        });
      if (s.k === 'assign' && s.target.k !== 'var') {
        if (s.target.k === 'idx') {
          out.push(access(s.target, true, v, ranges, varying));
          readsIn(s.target.index);
        } else out.push(unknown(s.target, true));
        readsIn(s.target.obj);
        readsIn(s.value);
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

function access(e: Extract<Expr, { k: 'idx' }>, write: boolean, v: string, ranges: Map<string, { lo: number | null; hi: number | null }>, varying: Set<string>): Access {
  const root = rootVar(e) ?? '?';
  if (e.obj.k !== 'var') return { root, write, where: { k: 'unknown' } };
  const lin = linear(e.index);
  if (!lin) return { root, write, where: { k: 'unknown' } };
  const counters = lin.vars.filter((n) => n === v || ranges.has(n));
  const off = lin.vars.filter((n) => !counters.includes(n)).sort().join('+');
  if (counters.length !== 1 || lin.vars.some((n) => !counters.includes(n) && varying.has(n))) return { root, write, where: { k: 'unknown' } };
  const c = counters[0];
  if (c === v) return { root, write, where: { k: 'at', off, d: lin.k } };
  const r = ranges.get(c)!;
  return { root, write, where: { k: 'range', off, lo: r.lo === null ? null : r.lo + lin.k, hi: r.hi === null ? null : r.hi + lin.k } };
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
