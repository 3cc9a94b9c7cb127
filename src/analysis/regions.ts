// Array regions, in the one shape that matters most to adjoints: a counted loop that writes every
// element of an array, `for (let i = 0; i < n; i++) { a[i] = …; }` with `n` the array's length. Such a
// loop is a must-definition of the whole array, which element-by-element reasoning cannot see.
import type { Expr, Func, Stmt } from '../ir/types.js';
import { exprEq, forEachStmt, hasJump } from '../ir/util.js';
import { perFunction } from '../ir/per-function.js';

/** For each loop of `f` that overwrites whole arrays, the names of those arrays (found once per function object). */
export const wholeArrayWrites: (f: Func) => ReadonlyMap<Stmt, readonly string[]> = perFunction(findWholeArrayWrites);

function findWholeArrayWrites(f: Func): Map<Stmt, string[]> {
  const defs = definitionCounts(f);
  // a variable defined once at the top level holds one value from there on (inside a loop, the one
  // definition can run again)
  const topLevel = new Set<string>();
  for (const s of f.body) if (s.k === 'decl' && s.init) topLevel.add(s.name);
  const allocLen = new Map<string, Expr>();
  f.body.forEach((s) => {
    const v = s.k === 'decl' ? s.init : s.k === 'assign' && s.target.k === 'var' ? s.value : null;
    const name = s.k === 'decl' ? s.name : s.k === 'assign' && s.target.k === 'var' ? s.target.name : null;
    if (name && v && v.k === 'alloc' && defs.get(name) === 1) allocLen.set(name, v.len);
  });
  const isParam = new Set(f.params.map((p) => p.name));
  /** an expression whose value cannot change: numbers and variables defined once */
  const once = (v: string) => (isParam.has(v) ? !defs.has(v) : defs.get(v) === 1 && topLevel.has(v));
  const fixed = (e: Expr): boolean => e.k === 'num' || e.k === 'global' || (e.k === 'var' && once(e.name));
  const lengthMatches = (a: string, bound: Expr): boolean => {
    const single = once(a);
    if (!single) return false;
    if (bound.k === 'len' && bound.obj.k === 'var' && bound.obj.name === a) return true;
    const len = allocLen.get(a);
    return !!len && fixed(len) && exprEq(len, bound);
  };
  const out = new Map<Stmt, string[]>();
  forEachStmt(f.body, (s) => {
    if (s.k !== 'for') return;
    const i = countedFromZero(s);
    if (!i || !s.cond || s.cond.k !== 'bin') return;
    const bound = s.cond.b;
    if (!fixed(bound) && bound.k !== 'len') return;
    if (hasJump(s.body) || assigns(s.body, i)) return;
    const arrays: string[] = [];
    for (const b of s.body) {
      if (b.k !== 'assign' || b.target.k !== 'idx') continue;
      const { obj, index } = b.target;
      if (obj.k === 'var' && index.k === 'var' && index.name === i && b.target.ty.k === 'num' && lengthMatches(obj.name, bound)) arrays.push(obj.name);
    }
    if (arrays.length) out.set(s, arrays);
  });
  return out;
}

/** `for (i = 0; i < …; i++)`: the index name */
function countedFromZero(s: Extract<Stmt, { k: 'for' }>): string | null {
  if (s.init.length !== 1 || s.update.length !== 1 || !s.cond) return null;
  const init = s.init[0];
  const name = init.k === 'decl' ? init.name : init.k === 'assign' && init.target.k === 'var' ? init.target.name : null;
  const start = init.k === 'decl' ? init.init : init.k === 'assign' ? init.value : null;
  if (!name || !start || start.k !== 'num' || start.v !== 0) return null;
  if (s.cond.k !== 'bin' || s.cond.op !== '<' || s.cond.a.k !== 'var' || s.cond.a.name !== name) return null;
  const u = s.update[0];
  if (u.k !== 'assign' || u.target.k !== 'var' || u.target.name !== name) return null;
  const v = u.value;
  if (v.k !== 'bin' || v.op !== '+' || v.a.k !== 'var' || v.a.name !== name || v.b.k !== 'num' || v.b.v !== 1) return null;
  return name;
}

function assigns(body: Stmt[], name: string): boolean {
  let found = false;
  forEachStmt(body, (s) => {
    if ((s.k === 'assign' && s.target.k === 'var' && s.target.name === name) || (s.k === 'decl' && s.name === name)) found = true;
  });
  return found;
}

/** how many statements define each variable (declarations with a value and whole-variable assignments) */
function definitionCounts(f: Func): Map<string, number> {
  const n = new Map<string, number>();
  forEachStmt(f.body, (s) => {
    const name = s.k === 'decl' ? (s.init ? s.name : null) : s.k === 'assign' && s.target.k === 'var' ? s.target.name : null;
    if (name) n.set(name, (n.get(name) ?? 0) + 1);
  });
  return n;
}
