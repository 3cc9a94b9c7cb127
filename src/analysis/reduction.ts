// Reduction loops: loops whose iterations communicate only through a sum into one scalar.
//
// In `for (i…) { …work…; acc += e; }`, when everything else the body writes is started afresh in each
// iteration (killed before it is read) and used nowhere after the loop, the iterations depend on one
// another only through acc, and acc's adjoint is the same in every reversed iteration. The adjoint
// transformation uses this to run each iteration's adjoint right after the iteration (see
// transform/adjoint/loops/fused-reduction.ts); this module finds such loops.

import type { Expr, Func, Stmt, Ty } from '../ir/types.js';
import { forEachChild, forEachExpr, forEachStmt, hasFloat, isRef, rootVar, stmtExprs, WRITING_INTRINSICS } from '../ir/util.js';
import { stmtCalls } from './activity.js';
import { wholeArrayWrites } from './regions.js';

export interface ReductionLoop {
  /** the one active scalar every iteration adds into (`acc += e` / `acc -= e`, read nowhere else in the loop) */
  acc: string;
  /** names declared in the body, and the loop index */
  inside: Set<string>;
  /** names declared outside the body that it writes (acc excluded): each started afresh per iteration */
  written: Set<string>;
  /** active names the body reads and never changes: their adjoints are what each iteration produces */
  invariants: string[];
}

export interface ReductionQuery {
  f: Func;
  /** does the variable carry a derivative? */
  active: (name: string) => boolean;
  /** the alias class representative of a variable (arrays and the rows taken from them share one) */
  rep: (name: string) => string;
  /** parameter positions a user function writes through */
  calleeWrites: (fn: string) => Set<number> | undefined;
}


/** The reduction structure of a counted loop with index `index`, or null when it has none. */
export function reductionLoop(loop: Extract<Stmt, { k: 'for' }>, index: string, q: ReductionQuery): ReductionLoop | null {
  const body = loop.body;
  if (jumpsOut(body)) return null;
  const inside = new Set<string>([index]);
  forEachStmt(body, (st) => {
    if (st.k === 'decl') inside.add(st.name);
  });
  const types = declaredTypes(q.f);
  const params = new Set(q.f.params.map((p) => p.name));
  const outsideNames = [...types.keys()].filter((n) => !inside.has(n));
  // an element written through any member of an alias class writes every outside member
  const outsideOfClass = (name: string) => {
    const r = q.rep(name);
    return outsideNames.filter((n) => n === name || (isRef(types.get(n)!) && q.rep(n) === r));
  };
  const written = new Set<string>();
  let tapeCode = false;
  const writeThrough = (target: Expr) => {
    const r = rootVar(target);
    if (r) for (const n of outsideOfClass(r)) written.add(n);
  };
  forEachStmt(body, (st) => {
    if (st.k === 'assign') {
      if (st.target.k === 'var') {
        if (!inside.has(st.target.name)) written.add(st.target.name);
      } else writeThrough(st.target);
    }
    for (const c of stmtCalls(st)) {
      const w = q.calleeWrites(c.fn);
      c.args.forEach((a, j) => {
        if (w?.has(j)) writeThrough(a);
      });
    }
    for (const e of stmtExprs(st))
      forEachExpr(e, (x) => {
        if (x.k !== 'intr') return;
        if (x.fn.startsWith('tape.') || x.fn.startsWith('Tape.')) tapeCode = true;
        if (WRITING_INTRINSICS.has(x.fn) && x.args[0]) writeThrough(x.args[0]);
      });
  });
  // code that already works a tape (tsad's own output differentiated again) keeps the plain reversal
  if (tapeCode) return null;
  const accs = [...written].filter((n) => types.get(n)?.k === 'num' && q.active(n) && !params.has(n) && onlyAccumulated(body, n));
  if (accs.length !== 1) return null;
  const acc = accs[0];
  written.delete(acc);
  for (const w of written) if (params.has(w)) return null;
  // every other write is private to its iteration: nothing active is carried to the next one, and
  // (simplest) nothing passive either, so the iteration's adjoint may put back what it likes
  const key = (name: string) => (isRef(types.get(name) ?? NUM_TY) ? q.rep(name) : name);
  const exposed = exposedReads(q.f, body, key, acc);
  for (const w of written) if (exposed.has(key(w))) return null;
  // …and used nowhere after the loop
  const usedOutside = readsOutside(q.f.body, loop, written, key);
  if (usedOutside) return null;
  // what the iteration reads and leaves alone: its adjoint goes to a per-unit-seed copy
  const writtenKeys = new Set([...written].map(key));
  const read = new Set<string>();
  forEachStmt(body, (st) => {
    for (const e of stmtExprs(st))
      forEachExpr(e, (x) => {
        if (x.k === 'var') read.add(x.name);
      });
  });
  const invariants: string[] = [];
  for (const n of [...read].sort()) {
    if (inside.has(n) || n === acc || written.has(n) || !types.has(n) || !q.active(n)) continue;
    // an alias of an array the iteration writes is not unchanged
    if (writtenKeys.has(key(n))) return null;
    if (!numbersOnly(types.get(n)!)) return null;
    invariants.push(n);
  }
  return { acc, inside, written, invariants };
}

const NUM_TY: Ty = { k: 'num' };

function elementKey(array: string, index: string): string {
  return `${array}[${index}]`;
}

/**
 * numbers, or arrays and objects (of arrays and objects…) of numbers whose fields holding numbers are
 * always there: the adjoints the reduction knows how to scale (an instance: GMM's `mixture`)
 */
function numbersOnly(t: Ty): boolean {
  if (t.k === 'num') return true;
  if (t.k === 'arr') return numbersOnly(t.elem);
  if (t.k === 'obj') return t.fields.every((f) => !hasFloat(f.ty) || (!f.optional && numbersOnly(f.ty)));
  return false;
}

function declaredTypes(f: Func): Map<string, Ty> {
  const m = new Map<string, Ty>();
  for (const p of f.params) m.set(p.name, p.ty);
  forEachStmt(f.body, (st) => {
    if (st.k === 'decl') m.set(st.name, st.ty);
  });
  return m;
}

/** a return, labelled jump, or break/continue of the loop itself leaves the iteration early */
function jumpsOut(body: Stmt[]): boolean {
  let out = false;
  const walk = (list: Stmt[], inLoop: boolean, inSwitch: boolean) => {
    for (const st of list) {
      switch (st.k) {
        case 'return':
          out = true;
          break;
        // (a throw ends the whole call, the derivative's as the primal's: no later iteration depends on it)
        case 'throw':
          break;
        case 'break':
          if (st.label || (!inLoop && !inSwitch)) out = true;
          break;
        case 'continue':
          if (st.label || !inLoop) out = true;
          break;
        case 'if':
          walk(st.then, inLoop, inSwitch);
          walk(st.else, inLoop, inSwitch);
          break;
        case 'for':
        case 'while':
        case 'do':
          walk(st.body, true, false);
          break;
        case 'block':
          walk(st.body, inLoop, inSwitch);
          break;
        case 'switch':
          for (const c of st.cases) walk(c.body, inLoop, true);
          break;
        default:
          break;
      }
    }
  };
  walk(body, false, false);
  return out;
}

/** is every occurrence of `name` in `body` an accumulation `name += e` / `name -= e` with e free of it? */
function onlyAccumulated(body: Stmt[], name: string): boolean {
  let ok = true;
  let seen = false;
  forEachStmt(body, (st) => {
    if (st.k === 'assign' && st.target.k === 'var' && st.target.name === name) {
      seen = true;
      const v = st.value;
      const accumulates = (st.op === '+' || st.op === '-') && v.k === 'bin' && v.op === st.op && v.a.k === 'var' && v.a.name === name && !mentions(v.b, name);
      if (!accumulates) ok = false;
      return;
    }
    for (const e of stmtExprs(st)) if (mentions(e, name)) ok = false;
  });
  return ok && seen;
}

function mentions(e: Expr, name: string): boolean {
  let found = false;
  forEachExpr(e, (x) => {
    if (x.k === 'var' && x.name === name) found = true;
  });
  return found;
}

/**
 * Variables (alias classes for arrays) the body reads before the same iteration has defined them:
 * scalars by a plain assignment, arrays by a counted loop that writes them whole or a fresh allocation.
 * The accumulator's own reads do not count.
 */
function exposedReads(f: Func, body: Stmt[], key: (name: string) => string, acc: string): Set<string> {
  const whole = wholeArrayWrites(f);
  const exposed = new Set<string>();
  const reads = (e: Expr, defined: Set<string>) => {
    const visit = (x: Expr): void => {
      switch (x.k) {
        case 'var':
          if (x.name !== acc && !defined.has(key(x.name))) exposed.add(key(x.name));
          return;
        case 'idx':
          // `a[j]` after `a[j] = …` in the same iteration of j's loop
          if (x.obj.k === 'var' && x.index.k === 'var' && defined.has(elementKey(key(x.obj.name), x.index.name))) return;
          forEachChild(x, visit);
          return;
        case 'len':
          // an array's length is not one of its values
          if (x.obj.k !== 'var') visit(x.obj);
          return;
        default:
          forEachChild(x, visit);
      }
    };
    visit(e);
  };
  const walk = (list: Stmt[], defined: Set<string>) => {
    for (const st of list) {
      switch (st.k) {
        case 'decl':
          if (st.init) reads(st.init, defined);
          if (!isRef(st.ty) || (st.init && (st.init.k === 'alloc' || st.init.k === 'arrlit'))) defined.add(key(st.name));
          break;
        case 'assign':
          if (st.target.k === 'var') {
            reads(st.value, defined);
            // a new value of an index: elements defined through it are other elements now
            const name = st.target.name;
            for (const d of [...defined]) if (d.endsWith(`[${name}]`)) defined.delete(d);
            if (!isRef(st.target.ty) || st.value.k === 'alloc' || st.value.k === 'arrlit') defined.add(key(name));
          } else {
            // the element written is not read, the path to it is
            const t = st.target;
            if (t.k === 'idx') {
              reads(t.index, defined);
              if (t.obj.k !== 'var') reads(t.obj, defined);
            } else if (t.obj.k !== 'var') reads(t.obj, defined);
            reads(st.value, defined);
            if (t.k === 'idx' && t.obj.k === 'var' && t.index.k === 'var' && !st.op) defined.add(elementKey(key(t.obj.name), t.index.name));
          }
          break;
        case 'expr':
        case 'return':
        case 'throw':
          for (const e of stmtExprs(st)) reads(e, defined);
          break;
        case 'if': {
          reads(st.c, defined);
          const a = new Set(defined);
          const b = new Set(defined);
          walk(st.then, a);
          walk(st.else, b);
          for (const k of a) if (b.has(k)) defined.add(k);
          break;
        }
        case 'for': {
          walk(st.init, defined);
          if (st.cond) reads(st.cond, defined);
          const inner = new Set(defined);
          walk(st.body, inner);
          walk(st.update, inner);
          for (const a of whole.get(st) ?? []) defined.add(key(a));
          break;
        }
        case 'while':
        case 'do': {
          reads(st.cond, defined);
          walk(st.body, new Set(defined));
          break;
        }
        case 'block':
          walk(st.body, defined);
          break;
        case 'switch':
          for (const e of stmtExprs(st)) reads(e, defined);
          for (const c of st.cases) walk(c.body, new Set(defined));
          break;
        default:
          break;
      }
    }
  };
  walk(body, new Set());
  return exposed;
}

/** does a statement outside `loop` read one of `names` (by alias class for arrays)? Declarations that only allocate do not count. */
function readsOutside(fbody: Stmt[], loop: Stmt, names: Set<string>, key: (name: string) => string): boolean {
  const keys = new Set([...names].map(key));
  const mine = new Set<Stmt>();
  forEachStmt([loop], (x) => void mine.add(x));
  let found = false;
  forEachStmt(fbody, (st) => {
    if (mine.has(st)) return;
    if (st.k === 'decl' && names.has(st.name) && (!st.init || st.init.k === 'alloc' || st.init.k === 'num' || st.init.k === 'arrlit')) return;
    for (const e of stmtExprs(st))
      forEachExpr(e, (x) => {
        if (x.k === 'var' && keys.has(key(x.name)) && !(st.k === 'assign' && st.target === x)) found = true;
      });
  });
  return found;
}
