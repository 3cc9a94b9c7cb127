// Merging of differentiated statements (Tapenade §4.8, figure 10), on the backward sweep's straight-line
// code: two increments of one adjoint location become one (`vb[j] = vb[j] + a + b`, evaluated in the
// same order, so bit for bit the same sum), and a reset followed by an increment becomes an assignment
// (`gb[i] = 0; … gb[i] += e` → `gb[i] = e`). The shared subexpressions of one statement's partials are
// bound to temporaries by the linearization already (`temp`, `tempb`).
import type { Expr, LValue, Stmt } from '../ir/types.js';
import { exprEq, forEachExpr, rootVar, stmtExprs } from '../ir/util.js';

/** which storage a variable names: local aliases of one array (`rowb = mb[i]`) share a class */
export type Storage = (name: string) => string;

/** `stmts` with increments merged, recursively in nested statement lists */
export function mergeIncrements(stmts: Stmt[], storage: Storage = (n) => n): Stmt[] {
  const prev = canon;
  canon = storage;
  try {
    return mergeList(stmts);
  } finally {
    canon = prev;
  }
}

let canon: Storage = (n) => n;

function mergeList(stmts: Stmt[]): Stmt[] {
  const out = stmts.map(mergeInside);
  for (let q = 0; q < out.length; q++) {
    const s2 = out[q];
    const inc2 = increment(s2);
    if (!inc2) continue;
    for (let p = q - 1; p >= 0; p--) {
      const s1 = out[p];
      if (!isSimple(s1)) break;
      const inc1 = increment(s1);
      // the second right-hand side must not read the location: it would see it before the first increment
      if (inc1 && exprEq(inc1.target, inc2.target) && !readsRoot(inc2.rhs, rootVar(inc2.target)!) && between(out, p, q, inc1.target, [inc1.rhs, ...indexExprs(inc1.target)])) {
        // the earlier increment moves down: X = X op1 r1 op2 r2
        const sum: Expr = { k: 'bin', op: inc1.op, a: inc1.target, b: inc1.rhs, ty: inc1.target.ty };
        out[q] = { k: 'assign', target: inc2.target, value: { k: 'bin', op: inc2.op, a: sum, b: inc2.rhs, ty: inc2.target.ty }, loc: s2.loc, comments: s1.comments ?? s2.comments };
        out.splice(p, 1);
        q--;
        break;
      }
      if (isReset(s1, inc2.target) && inc2.op === '+' && !readsRoot(inc2.rhs, rootVar(inc2.target)!) && between(out, p, q, inc2.target, [])) {
        out[q] = { k: 'assign', target: inc2.target, value: inc2.rhs, loc: s2.loc, comments: s1.comments ?? s2.comments };
        out.splice(p, 1);
        q--;
        break;
      }
      if (touchesRoot(s1, rootVar(inc2.target)!)) break;
    }
  }
  return out;
}

function mergeInside(s: Stmt): Stmt {
  switch (s.k) {
    case 'if':
      return { ...s, then: mergeList(s.then), else: mergeList(s.else) };
    case 'for':
      return { ...s, body: mergeList(s.body) };
    case 'while':
    case 'do':
    case 'block':
      return { ...s, body: mergeList(s.body) };
    case 'switch':
      return { ...s, cases: s.cases.map((c) => ({ tests: c.tests, body: mergeList(c.body) })) };
    default:
      return s;
  }
}

interface Increment {
  target: LValue;
  op: '+' | '-';
  rhs: Expr;
}

/** `X += r` / `X -= r` on a float location */
function increment(s: Stmt): Increment | null {
  if (s.k !== 'assign' || s.target.ty.k !== 'num') return null;
  const v = s.value;
  if (v.k !== 'bin' || (v.op !== '+' && v.op !== '-') || !exprEq(v.a, s.target)) return null;
  if (!rootVar(s.target)) return null;
  return { target: s.target, op: v.op, rhs: v.b };
}

function isReset(s: Stmt, target: LValue): boolean {
  return s.k === 'assign' && exprEq(s.target, target) && s.value.k === 'num' && s.value.v === 0 && !Object.is(s.value.v, -0);
}

function isSimple(s: Stmt): boolean {
  if (s.k !== 'assign' && s.k !== 'decl') return false;
  let effect = false;
  for (const e of stmtExprs(s))
    forEachExpr(e, (x) => {
      if (x.k === 'call' || x.k === 'intr') effect = effect || x.k === 'call' || x.fn.startsWith('tape.') || SIDE_EFFECTS.has(x.fn);
    });
  return !effect;
}

const SIDE_EFFECTS = new Set(['push', 'pop', 'restoreInto', 'addInto', 'zeroFill', 'Tape.acquire', 'Tape.release']);

/** the index expressions of a location (a[i][j]: i and j) */
function indexExprs(lv: Expr): Expr[] {
  const out: Expr[] = [];
  let e = lv;
  while (e.k === 'idx' || e.k === 'field') {
    if (e.k === 'idx') out.push(e.index);
    e = e.obj;
  }
  return out;
}

/**
 * May the statements strictly between p and q be crossed: simple statements that neither read nor
 * write the location's array (or variable), nor write what `moved` reads?
 */
function between(list: Stmt[], p: number, q: number, target: LValue, moved: Expr[]): boolean {
  const root = rootVar(target)!;
  const reads = new Set<string>();
  for (const e of [...moved, ...indexExprs(target)])
    forEachExpr(e, (x) => {
      if (x.k === 'var') reads.add(x.name);
    });
  for (let k = p + 1; k < q; k++) {
    const s = list[k];
    if (!isSimple(s) || touchesRoot(s, root)) return false;
    const w = s.k === 'decl' ? s.name : s.k === 'assign' ? rootVar(s.target) : null;
    if (w && reads.has(w)) return false;
  }
  return true;
}

function readsRoot(e: Expr, root: string): boolean {
  const c = canon(root);
  let found = false;
  forEachExpr(e, (x) => {
    if (x.k === 'var' && canon(x.name) === c) found = true;
  });
  return found;
}

/** does `s` read or write anything of `root`? */
function touchesRoot(s: Stmt, root: string): boolean {
  if (s.k === 'decl' && canon(s.name) === canon(root)) return true;
  for (const e of stmtExprs(s)) if (readsRoot(e, root)) return true;
  return false;
}
