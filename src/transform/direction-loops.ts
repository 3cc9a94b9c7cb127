// Fusion of the vector mode's direction loops. The tangent transform wraps each statement's tangent in
// a loop over the directions, `for (let nd = 0; nd < nbdirs; nd++) { ad[nd] = … }`, placed before the
// primal statement it belongs to: a straight-line body of k active statements becomes k small loops,
// each paying its loop overhead for a few directions. Here consecutive direction loops become one, the
// primal statements between them moved above the first (chained Rosenbrock's H·V, 4 directions: about
// 4× faster).
//
// Why it is sound. Direction nd of a vector-mode value lives at index nd, or E·nbdirs + nd (an array
// element E), of its tangent array: a slot that no other direction uses, whatever E (it is nd modulo
// nbdirs). A loop whose every write and every read through an nd-dependent index is such a slot
// computes direction nd from direction nd alone, so running the two loops' bodies one direction at a
// time gives what running the first for every direction, then the second, gives. Statements are only
// reordered when they share no variable with the loop they pass (and a write to memory does not pass a
// loop reading primal memory); anything else (calls, tape operations, pushes onto arrays, whose order
// across directions matters, nested control flow) ends the run.
import type { Expr, Stmt } from '../ir/types.js';
import { forEachExpr, mapBodies, stmtExprs } from '../ir/util.js';

/** what a statement or a loop reads and writes, by variable */
interface Effects {
  reads: Set<string>;
  writes: Set<string>;
  /** writes an element or a field (of primal memory, for a statement outside the direction loops) */
  writesMemory: boolean;
  /** reads an element or field through an index not of direction nd (primal memory) */
  readsOtherMemory: boolean;
}

/** every statement list in `body` with its runs of direction loops fused (vector mode only) */
export function fuseDirectionLoops(body: Stmt[], nd: string, nbdirs: string): Stmt[] {
  const out: Stmt[] = [];
  // the last direction loop of `out` that a later one may join, and its effects
  let last = -1;
  let lastFx: Effects | null = null;
  for (const s0 of body) {
    const s = mapBodies(s0, (list) => fuseDirectionLoops(list, nd, nbdirs));
    const fx = directionLoopEffects(s, nd, nbdirs);
    if (!fx) {
      out.push(s);
      continue;
    }
    const between = out.slice(last + 1);
    if (lastFx && between.every((p) => passes(p, lastFx!))) {
      const first = out[last] as Extract<Stmt, { k: 'for' }>;
      out.splice(last);
      out.push(...between, { ...first, body: [...first.body, ...(s as Extract<Stmt, { k: 'for' }>).body] });
      lastFx = union(lastFx, fx);
    } else {
      out.push(s);
      lastFx = fx;
    }
    last = out.length - 1;
  }
  return out;
}

/**
 * The effects of `s` if it is a direction loop whose body may be fused (head comment): assignments to
 * slots of direction nd, reading through nd-dependent indices only such slots, with no call and no
 * intrinsic but Math's (and `Number.isFinite`, the guard of an infinite partial).
 */
function directionLoopEffects(s: Stmt, nd: string, nbdirs: string): Effects | null {
  if (!isDirectionLoop(s, nd, nbdirs)) return null;
  const fx: Effects = { reads: new Set(), writes: new Set(), writesMemory: true, readsOtherMemory: false };
  for (const x of s.body) {
    if (x.k !== 'assign' || x.target.k !== 'idx' || !isDirectionSlot(x.target.index, nd, nbdirs)) return null;
    const root = rootOf(x.target);
    if (!root) return null;
    fx.writes.add(root);
    let ok = true;
    for (const e of stmtExprs(x))
      forEachExpr(e, (y) => {
        if (y.k === 'call' || (y.k === 'intr' && !y.fn.startsWith('Math.') && y.fn !== 'Number.isFinite')) ok = false;
        if (y.k === 'var' && y.name !== nd) fx.reads.add(y.name);
        if (y.k === 'idx' && mentions(y.index, nd) && !isDirectionSlot(y.index, nd, nbdirs)) ok = false;
        if ((y.k === 'idx' && !mentions(y.index, nd)) || y.k === 'field') fx.readsOtherMemory = true;
      });
    if (!ok) return null;
  }
  return fx;
}

/** the direction variable of `s` if it is a direction loop, `for (let nd = 0; nd < nbdirs; nd++)` */
export function directionLoopVar(s: Stmt, nbdirs: string): string | null {
  if (s.k !== 'for' || s.init.length !== 1 || s.init[0].k !== 'decl') return null;
  return isDirectionLoop(s, s.init[0].name, nbdirs) ? s.init[0].name : null;
}

/** `for (let nd = 0; nd < nbdirs; nd++)` */
function isDirectionLoop(s: Stmt, nd: string, nbdirs: string): s is Extract<Stmt, { k: 'for' }> {
  if (s.k !== 'for' || s.init.length !== 1 || s.update.length !== 1 || !s.cond || s.body.length === 0) return false;
  const [init] = s.init;
  const [update] = s.update;
  return (
    init.k === 'decl' && init.name === nd && init.init?.k === 'num' && init.init.v === 0 &&
    s.cond.k === 'bin' && s.cond.op === '<' && isVar(s.cond.a, nd) && isVar(s.cond.b, nbdirs) &&
    update.k === 'assign' && update.target.k === 'var' && update.target.name === nd && update.value.k === 'bin' && update.value.op === '+' && isVar(update.value.a, nd) && update.value.b.k === 'num' && update.value.b.v === 1
  );
}

/** `nd`, or `E * nbdirs + nd` with E free of nd: the slot of direction nd */
export function isDirectionSlot(index: Expr, nd: string, nbdirs: string): boolean {
  if (isVar(index, nd)) return true;
  return index.k === 'bin' && index.op === '+' && isVar(index.b, nd) && index.a.k === 'bin' && index.a.op === '*' && isVar(index.a.b, nbdirs) && !mentions(index.a.a, nd);
}

/** whether statement `p`, after loop `loop`, may move above it (head comment) */
function passes(p: Stmt, loop: Effects): boolean {
  if (p.k !== 'decl' && p.k !== 'assign') return false;
  const fx: Effects = { reads: new Set(), writes: new Set(), writesMemory: false, readsOtherMemory: false };
  if (p.k === 'decl') fx.writes.add(p.name);
  else {
    const root = rootOf(p.target);
    if (!root) return false;
    fx.writes.add(root);
    fx.writesMemory = p.target.k !== 'var';
  }
  let ok = true;
  for (const e of stmtExprs(p))
    forEachExpr(e, (y) => {
      if (y.k === 'call' || (y.k === 'intr' && !y.fn.startsWith('Math.'))) ok = false;
      if (y.k === 'var') fx.reads.add(y.name);
    });
  if (!ok || (fx.writesMemory && loop.readsOtherMemory)) return false;
  for (const w of fx.writes) if (loop.reads.has(w) || loop.writes.has(w)) return false;
  for (const r of fx.reads) if (loop.writes.has(r)) return false;
  return true;
}

function union(a: Effects, b: Effects): Effects {
  return { reads: new Set([...a.reads, ...b.reads]), writes: new Set([...a.writes, ...b.writes]), writesMemory: a.writesMemory || b.writesMemory, readsOtherMemory: a.readsOtherMemory || b.readsOtherMemory };
}

function rootOf(e: Expr): string | null {
  return e.k === 'var' ? e.name : e.k === 'idx' || e.k === 'field' ? rootOf(e.obj) : null;
}

function isVar(e: Expr, name: string): boolean {
  return e.k === 'var' && e.name === name;
}

function mentions(e: Expr, name: string): boolean {
  let found = false;
  forEachExpr(e, (y) => {
    if (y.k === 'var' && y.name === name) found = true;
  });
  return found;
}
