// Scratch fields: arrays an instance owns whose contents never pass from one call to another.
//
// `this.centered = new Float64Array(d)` in the constructor, and every function that reads its elements
// first writes all of them it will read: a counted loop `for (j = 0; j < d; j++) diff[j] = …` at the top
// of the function, and afterwards only reads below the same bound `d`. No value one call writes there
// is read by a later call, so the contents are not state a caller can observe:
// - a call writing them does not write its instance (activity's `computeWrites`): no caller restores
//   them, and a loop summing such calls can be a fused reduction;
// - the adjoint of a method records nothing to put them back for its callers (record.ts `mustRecord`);
// - instead its backward sweep takes back the contents its forward sweep left (signature.ts handover).
//
// Anything else done with such an array — passing it to a call, storing or returning it, reading an
// element not provably written first, reaching it through two instances in one function, calling any
// function between its writes and reads — keeps it an ordinary field.
import type { Expr, Func, Module, Stmt } from '../ir/types.js';
import { perFunction } from '../ir/per-function.js';
import { forEachChild, forEachStmt, hasJump, stmtExprs, tyOf } from '../ir/util.js';

export interface ScratchFields {
  /** `Class.field` keys of the scratch fields */
  fields: ReadonlySet<string>;
  /** per function, its local variables holding a scratch field (`const diff = self.centered`), by key */
  aliases: ReadonlyMap<string, ReadonlyMap<string, string>>;
  /**
   * the element writes of the loops that start the contents afresh (`diff[j] = …` in the first loop):
   * the values they overwrite were written by another call, and nobody reads them again
   */
  kills: ReadonlySet<Stmt>;
  /** per function, the variable each scratch field's instance is reached through, by key */
  instances: ReadonlyMap<string, ReadonlyMap<string, string>>;
}

/** the last answer per function table, with the functions it was computed from (a table changed in place is computed again) */
const memo = new WeakMap<Module['funcs'], { funcs: Func[]; found: ScratchFields }>();

/** The scratch fields of a module (once per function table). */
export function scratchFields(mod: Module): ScratchFields {
  const funcs = [...mod.funcs.values()];
  const known = memo.get(mod.funcs);
  if (known && known.funcs.length === funcs.length && known.funcs.every((f, i) => f === funcs[i])) return known.found;
  const found = findScratchFields(mod);
  memo.set(mod.funcs, { funcs, found });
  return found;
}

/** `Class.field` of a field expression on an instance of a named class or type, if it is one */
function keyOf(e: Expr): string | null {
  if (e.k !== 'field') return null;
  const t = tyOf(e.obj);
  return t.k === 'obj' && t.name ? `${t.name}.${e.name}` : null;
}

/** a flat array of numbers (what a scratch field may hold) */
function flatNumbers(e: Expr): boolean {
  const t = tyOf(e);
  return t.k === 'arr' && t.elem.k === 'num';
}

/** a fresh array or object: an allocation, a literal, a copy */
export const isFreshValue = (e: Expr): boolean => e.k === 'alloc' || e.k === 'arrlit' || e.k === 'objlit' || (e.k === 'intr' && e.fn === 'copy');

interface Access {
  /** the element index expression */
  index: Expr;
  write: boolean;
  stmt: Stmt;
}

interface FieldUse {
  /** the variable the instance is reached through, per function (one only) */
  instance: string;
  /** local variables holding the array */
  aliases: Set<string>;
  /** element accesses through the field itself (`self.centered[j]`) */
  direct: boolean;
  accesses: Access[];
}

function findScratchFields(mod: Module): ScratchFields {
  // fields only ever assigned fresh arrays of numbers
  const candidates = new Set<string>();
  const refused = new Set<string>();
  for (const f of mod.funcs.values()) {
    const assigned = fieldsAssigned(f);
    for (const k of assigned.fresh) candidates.add(k);
    for (const k of assigned.other) refused.add(k);
  }
  for (const k of refused) candidates.delete(k);
  if (!candidates.size) return { fields: new Set(), aliases: new Map(), kills: new Set(), instances: new Map() };
  const uses = new Map<string, Map<string, FieldUse>>(); // function → key → use
  for (const [name, f] of mod.funcs) {
    const mine = usesIn(f, candidates, refused);
    uses.set(name, mine);
  }
  for (const k of refused) candidates.delete(k);
  const kills = new Map<string, Stmt[]>();
  for (const [name, perKey] of uses) {
    const f = mod.funcs.get(name)!;
    for (const [key, use] of perKey) {
      if (!candidates.has(key)) continue;
      const killed = use.aliases.size + (use.direct ? 1 : 0) > 1 ? null : killedBeforeRead(f, use);
      if (!killed) candidates.delete(key);
      else kills.set(key, [...(kills.get(key) ?? []), ...killed]);
    }
  }
  const aliases = new Map<string, Map<string, string>>();
  const instances = new Map<string, Map<string, string>>();
  for (const [name, perKey] of uses)
    for (const [key, use] of perKey) {
      if (!candidates.has(key)) continue;
      if (!instances.has(name)) instances.set(name, new Map());
      instances.get(name)!.set(key, use.instance);
      for (const v of use.aliases) {
        if (!aliases.has(name)) aliases.set(name, new Map());
        aliases.get(name)!.set(v, key);
      }
    }
  return { fields: candidates, aliases, kills: new Set([...kills].filter(([k]) => candidates.has(k)).flatMap(([, l]) => l)), instances };
}

/** the fields (`Class.field`) a function assigns, in a store or a literal: fresh arrays of numbers, or other values */
const fieldsAssigned = perFunction((f) => {
  const fresh = new Set<string>();
  const other = new Set<string>();
  const note = (key: string | null, value: Expr) => {
    if (!key) return;
    if (isFreshValue(value) && flatNumbers(value)) fresh.add(key);
    else other.add(key);
  };
  forEachStmt(f.body, (s) => {
    if (s.k === 'assign' && s.target.k === 'field') note(keyOf(s.target), s.value);
    for (const e of stmtExprs(s))
      walk(e, (x) => {
        if (x.k === 'objlit') {
          const t = x.ty;
          if (t.k === 'obj' && t.name) for (const fl of x.fields) note(`${t.name}.${fl.name}`, fl.value);
        }
      });
  });
  return { fresh, other };
});

/** pre-order walk of an expression */
function walk(e: Expr, f: (x: Expr) => void): void {
  f(e);
  forEachChild(e, (c) => walk(c, f));
}

/**
 * How `f` uses each candidate field: through which instance variable, which local aliases, which
 * element accesses. A use of another kind refuses the field (added to `refused`).
 */
function usesIn(f: Func, candidates: Set<string>, refused: Set<string>): Map<string, FieldUse> {
  const out = new Map<string, FieldUse>();
  const defs = new Map<string, number>();
  for (const p of f.params) defs.set(p.name, 1);
  forEachStmt(f.body, (s) => {
    const n = s.k === 'decl' ? s.name : s.k === 'assign' && s.target.k === 'var' ? s.target.name : null;
    if (n) defs.set(n, (defs.get(n) ?? 0) + (s.k === 'decl' && !s.init ? 0 : 1));
  });
  const useOf = (key: string, instance: Expr): FieldUse | null => {
    // the instance: a variable defined once (a parameter the body never assigns, or a local)
    if (instance.k !== 'var' || (defs.get(instance.name) ?? 0) > 1) return null;
    let u = out.get(key);
    if (!u) out.set(key, (u = { instance: instance.name, aliases: new Set(), direct: false, accesses: [] }));
    return u.instance === instance.name ? u : null;
  };
  const aliasKey = new Map<string, string>();
  // aliases first: `const diff = self.centered` (a local defined once, by this)
  forEachStmt(f.body, (s) => {
    const v = s.k === 'decl' ? s.name : s.k === 'assign' && s.target.k === 'var' ? s.target.name : null;
    const value = s.k === 'decl' ? s.init : s.k === 'assign' && s.target.k === 'var' ? s.value : null;
    const key = value ? keyOf(value) : null;
    if (!v || !value || !key || !candidates.has(key)) return;
    const u = useOf(key, (value as Extract<Expr, { k: 'field' }>).obj);
    if (!u || defs.get(v) !== 1) return void refused.add(key);
    u.aliases.add(v);
    aliasKey.set(v, key);
  });
  const access = (key: string, u: FieldUse | null, index: Expr, write: boolean, s: Stmt) => {
    if (!u) return void refused.add(key);
    u.accesses.push({ index, write, stmt: s });
  };
  // every other mention: element accesses and lengths only
  const visit = (e: Expr, s: Stmt, write: boolean, whole: boolean): void => {
    if (e.k === 'idx' && (e.obj.k === 'var' || e.obj.k === 'field')) {
      const key = e.obj.k === 'var' ? aliasKey.get(e.obj.name) : keyOf(e.obj);
      if (key && candidates.has(key)) {
        if (e.obj.k === 'var') access(key, out.get(key) ?? null, e.index, write, s);
        else {
          const u = useOf(key, e.obj.obj);
          if (u) u.direct = true;
          access(key, u, e.index, write, s);
        }
        visit(e.index, s, false, false);
        if (e.obj.k === 'field') visit(e.obj.obj, s, false, false);
        return;
      }
    }
    if (e.k === 'len' && (e.obj.k === 'var' || e.obj.k === 'field')) {
      const key = e.obj.k === 'var' ? aliasKey.get(e.obj.name) : keyOf(e.obj);
      if (key && candidates.has(key)) {
        if (e.obj.k === 'field') visit(e.obj.obj, s, false, false);
        return;
      }
    }
    if (e.k === 'var' && aliasKey.has(e.name) && !whole) refused.add(aliasKey.get(e.name)!);
    const key = keyOf(e);
    if (key && candidates.has(key) && !whole) refused.add(key);
    forEachChild(e, (c) => visit(c, s, false, false));
  };
  forEachStmt(f.body, (s) => {
    if (s.k === 'assign') {
      // `X.f = fresh` and `v = X.f` are the field's own definitions
      const defining = (s.target.k === 'field' && keyOf(s.target) !== null) || (s.target.k === 'var' && aliasKey.has(s.target.name));
      if (s.target.k === 'idx') visit(s.target, s, true, false);
      else if (s.target.k === 'field') visit(s.target.obj, s, false, false);
      // (`a[i] += e` reads the element it writes: counted as a write, which reads after writing)
      visit(s.value, s, false, defining);
      if (s.op && s.target.k === 'idx') visit(s.target, s, false, false);
      return;
    }
    if (s.k === 'decl' && s.init) {
      visit(s.init, s, false, aliasKey.get(s.name) === keyOf(s.init) && aliasKey.has(s.name));
      return;
    }
    for (const e of stmtExprs(s)) visit(e, s, false, false);
  });
  return out;
}

/**
 * The contents `f` reads of one field were all written earlier in the same call: the first statement
 * of the body touching the elements is a counted loop `for (j = 0; j < B; j++)` whose body writes
 * `a[j]` before any other access to them (each later one at index j), B a variable the function never
 * changes, and every access after that loop is at the index of a counted loop from a provably
 * non-negative start up to `< B`. A function that only writes the elements needs none of this. A
 * function reading them may call nothing: a call could write them between its writes and reads.
 */
function killedBeforeRead(f: Func, u: FieldUse): Stmt[] | null {
  const reads = u.accesses.filter((a) => !a.write || isUpdate(a.stmt));
  if (!reads.length) return [];
  let calls = false;
  forEachStmt(f.body, (s) => {
    for (const e of stmtExprs(s)) walk(e, (x) => void (x.k === 'call' && (calls = true)));
  });
  if (calls) return null;
  const touches = (s: Stmt) => {
    let hit = false;
    forEachStmt([s], (x) => {
      if (u.accesses.some((a) => a.stmt === x)) hit = true;
    });
    return hit;
  };
  const k = f.body.findIndex(touches);
  const loop = f.body[k];
  if (!loop || loop.k !== 'for') return null;
  const counted = ascendingLoop(loop);
  if (!counted || counted.start.k !== 'num' || counted.start.v !== 0) return null;
  const bound = counted.bound;
  if (!fixedIn(f, bound, k)) return null;
  const j = counted.index;
  // in the loop body: a write a[j] = e first (e not touching the field), then accesses at j only
  let written: Stmt | null = null;
  for (const s of loop.body) {
    const mine = u.accesses.filter((a) => {
      let inside = false;
      forEachStmt([s], (x) => void (x === a.stmt && (inside = true)));
      return inside;
    });
    if (!mine.length) continue;
    if (mine.some((a) => a.index.k !== 'var' || a.index.name !== j)) return null;
    if (!written) {
      if (s.k !== 'assign' || s.op || s.target.k !== 'idx' || mine.length !== 1 || !mine[0].write) return null;
      written = s;
    }
  }
  if (!written) return null;
  // after it: indices of counted loops from a non-negative start below the same bound
  const inRange = new Set<Access>();
  const scan = (list: Stmt[], ranged: Set<string>) => {
    for (const s of list) {
      if (s.k === 'for') {
        const c = ascendingLoop(s);
        const inner = new Set(ranged);
        if (c && c.bound === bound && nonNegative(c.start, ranged)) inner.add(c.index);
        scan(s.body, inner);
        continue;
      }
      for (const a of u.accesses) if (a.stmt === s && a.index.k === 'var' && ranged.has(a.index.name)) inRange.add(a);
      if (s.k === 'if') {
        scan(s.then, ranged);
        scan(s.else, ranged);
      } else if (s.k === 'block' || s.k === 'while' || s.k === 'do') scan(s.body, ranged);
      else if (s.k === 'switch') for (const c of s.cases) scan(c.body, ranged);
    }
  };
  scan(f.body.slice(k + 1), new Set());
  const after = new Set<Stmt>();
  forEachStmt(f.body.slice(k + 1), (x) => void after.add(x));
  return u.accesses.every((a) => !after.has(a.stmt) || inRange.has(a)) ? [written] : null;
}

/** `a[i] op= e`: a read of the element as well as a write */
function isUpdate(s: Stmt): boolean {
  return s.k === 'assign' && !!s.op;
}

/** `for (i = start; i < bound; i++)` with bound a variable and i unchanged in the body; no jumps out */
function ascendingLoop(s: Extract<Stmt, { k: 'for' }>): { index: string; start: Expr; bound: string } | null {
  if (s.init.length !== 1 || s.update.length !== 1 || !s.cond || hasJump(s.body)) return null;
  const init = s.init[0];
  const index = init.k === 'decl' ? init.name : init.k === 'assign' && init.target.k === 'var' ? init.target.name : null;
  const start = init.k === 'decl' ? init.init : init.k === 'assign' ? init.value : null;
  if (!index || !start) return null;
  if (s.cond.k !== 'bin' || s.cond.op !== '<' || s.cond.a.k !== 'var' || s.cond.a.name !== index || s.cond.b.k !== 'var') return null;
  const u = s.update[0];
  const step = u.k === 'assign' && u.target.k === 'var' && u.target.name === index && ((u.op === '+' && u.value.k === 'bin' && u.value.op === '+' && u.value.b.k === 'num' && u.value.b.v === 1) || (u.value.k === 'bin' && u.value.op === '+' && u.value.a.k === 'var' && u.value.a.name === index && u.value.b.k === 'num' && u.value.b.v === 1));
  if (!step) return null;
  let changed = false;
  forEachStmt(s.body, (x) => {
    if ((x.k === 'assign' && x.target.k === 'var' && x.target.name === index) || (x.k === 'decl' && x.name === index)) changed = true;
  });
  return changed ? null : { index, start, bound: s.cond.b.name };
}

/** a start the loop index cannot go below zero from: a non-negative literal, or `i + c` of such an index */
function nonNegative(e: Expr, ranged: Set<string>): boolean {
  if (e.k === 'num') return e.v >= 0;
  if (e.k === 'var') return ranged.has(e.name);
  if (e.k === 'bin' && e.op === '+') return nonNegative(e.a, ranged) && nonNegative(e.b, ranged);
  return false;
}

/** `name` holds one value through the function from before statement `at` on (a parameter never assigned, or a local defined once before it) */
function fixedIn(f: Func, name: string, at: number): boolean {
  let defs = 0;
  forEachStmt(f.body, (s) => {
    if ((s.k === 'decl' && s.name === name && s.init) || (s.k === 'assign' && s.target.k === 'var' && s.target.name === name)) defs++;
  });
  if (f.params.some((p) => p.name === name)) return defs === 0;
  if (defs !== 1) return false;
  return f.body.slice(0, at).some((s) => (s.k === 'decl' && s.name === name && s.init !== null) || (s.k === 'assign' && s.target.k === 'var' && s.target.name === name));
}
