// One shadow buffer for an array a loop allocates afresh on every pass.
//
// `const diff = xi.map((v, j) => v - mu[k][j])` inside a loop makes a new array each pass, and the
// reference model gives each one a new zero shadow, recorded on the tape and popped back when the
// backward sweep undoes the allocation. When the variable is the only name its arrays ever have (never
// passed, stored, aliased or returned, and every value it takes is a fresh allocation), the shadows'
// lifetimes in the backward sweep do not overlap: pass k's shadow is used from the reversal of the last
// read of pass k's array to the reversal of its allocation, and pass k + 1's allocation (which rebinds
// the variable, so comes after that last read) is undone before. One buffer then serves every pass: the
// forward sweep takes it again while it has the right length (nothing writes a shadow there), and the
// backward sweep zeroes it where it undoes an allocation, for the array the variable held before.
//
// The arrays themselves go the same way: where the backward sweep undoes the allocation, the array
// the variable held can no longer be reached (every reference the tape kept of it has been popped back
// into the variable), so it is given back to the tape, and the next allocation of that length, in this
// run or the next, takes it again.
import { escapingArrays } from '../../analysis/escaping.js';
import type { Expr, LValue, Stmt } from '../../ir/types.js';
import { forEachStmt } from '../../ir/util.js';
import { type AdjointContext, aliasRep, tapeOp, tyOfLocal } from './context.js';

const cache = new WeakMap<AdjointContext, Set<string>>();

/** Locals of `cx`'s function whose every value is a fresh array only they name. */
export function reusableShadows(cx: AdjointContext): Set<string> {
  let out = cache.get(cx);
  if (out) return out;
  out = new Set();
  cache.set(cx, out);
  if (cx.info.options.reuseShadows === false) return out;
  const params = new Set(cx.f.params.map((p) => p.name));
  const fresh = new Map<string, boolean>();
  const note = (name: string, value: Expr | null | undefined) => {
    if (!value) return;
    fresh.set(name, (fresh.get(name) ?? true) && zeroFilled(value));
  };
  forEachStmt(cx.f.body, (s) => {
    if (s.k === 'decl') note(s.name, s.init);
    else if (s.k === 'assign' && s.target.k === 'var') note(s.target.name, s.op ? null : s.value);
    // `v += …` on an array is not JavaScript; an element store is not a rebinding
    if (s.k === 'assign' && s.target.k === 'var' && s.op) fresh.set(s.target.name, false);
  });
  const escaping = escapingArrays(cx.f);
  for (const [name, ok] of fresh) {
    if (!ok || params.has(name) || escaping.has(name) || aliasRep(cx, name) !== name) continue;
    const t = tyOfLocal(cx, name);
    if (t?.k !== 'arr' || t.elem.k !== 'num' || (t.typed && (t.ctor ?? 'Float64Array') !== 'Float64Array')) continue;
    if (cx.tapes.has(name) || cx.paramHasB.has(name) || cx.alwaysRestore.has(name)) continue;
    out.add(name);
  }
  return out;
}

/** a new array of zeros (`new Array(n)` has holes, a typed array starts at zeros) */
function zeroFilled(e: Expr): boolean {
  if (e.k !== 'alloc') return false;
  if (e.fill === null) return e.ty.k === 'arr' && !!e.ty.typed;
  return e.fill.k === 'num' && e.fill.v === 0 && !Object.is(e.fill.v, -0);
}

/** tape operations whose array is as fresh as an allocation: no live name refers to it */
export const TAPE_ALLOCATIONS: ReadonlySet<string> = new Set(['tape.bufF', 'tape.zerosA', 'tape.zerosF64']);

/** the forward sweep's allocation of the array itself, from what the backward sweep gave back */
export function allocationAgain(cx: AdjointContext, alloc: Extract<Expr, { k: 'alloc' }>): Expr {
  const typed = alloc.ty.k === 'arr' && alloc.ty.typed;
  return tapeOp(cx, typed ? 'zerosF64' : 'zerosA', [alloc.len], alloc.ty);
}

/** the forward sweep's shadow for `target = new array of length len`: the buffer again when it fits */
export function shadowAgain(bt: LValue, len: Expr): Expr {
  const typed = bt.ty.k === 'arr' && bt.ty.typed;
  return { k: 'intr', fn: typed ? 'float64Again' : 'zerosAgain', args: [bt, len], ty: bt.ty };
}

/** the backward sweep, undoing that allocation: the array goes back to the tape */
export function giveBack(cx: AdjointContext, target: LValue): Stmt {
  return { k: 'expr', e: tapeOp(cx, 'giveBack', [target]) };
}

/** …and once `target` holds its earlier array again, the shadow buffer is zeroed for it */
export function shadowZeroedFor(bt: LValue, target: LValue): Stmt {
  return { k: 'assign', target: bt, value: { k: 'intr', fn: 'zeroedFor', args: [bt, target], ty: bt.ty } };
}
