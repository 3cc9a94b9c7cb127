// Merging of differentiated statements (Tapenade §4.8, figure 10), on the backward sweep's straight-line
// code: two increments of one adjoint location become one (`vb[j] = vb[j] + a + b`, evaluated in the
// same order, so bit for bit the same sum), and a reset followed by an increment becomes an assignment
// (`gb[i] = 0; … gb[i] += e` → `gb[i] = e`). The shared subexpressions of one statement's partials are
// bound to temporaries by the linearization already (`temp`, `tempb`).
import type { Expr, LValue, Stmt } from '../ir/types.js';
import { exprEq, forEachExpr, mapBodies, rootVar, stmtExprs } from '../ir/util.js';

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
  const out = stmts.map((s) => mapBodies(s, mergeList));
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

const SIDE_EFFECTS = new Set(['push', 'pop', 'truncate', 'restoreInto', 'addInto', 'zeroFill', 'Tape.acquire', 'Tape.release']);

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

/**
 * Scalars that live one loop iteration at a time (adjoints of an iteration's temporaries, mostly):
 * declared with 0, touched only inside one loop, where each iteration starts with an increment and
 * ends with a reset to 0. The value at the start of every iteration is then 0, so the increment is an
 * assignment (`tb = t * sb + t * sb` instead of `tb = tb + …`) and the closing reset goes: nothing
 * after the loop reads the scalar. (Only the sign of a zero can differ: `0 + -0` is `+0`.)
 */
export function iterationLocalScalars(body: Stmt[]): Stmt[] {
  const candidates: string[] = [];
  for (const d of body) if (d.k === 'decl' && d.ty.k === 'num' && d.init && d.init.k === 'num' && d.init.v === 0) candidates.push(d.name);
  if (!candidates.length) return body;
  // which statements of the body touch each candidate, from one walk (a rewrite changes only its own name's statements)
  const wanted = new Set(candidates);
  const touching = new Map<string, number[]>();
  body.forEach((s, i) =>
    namesTouched(s, wanted).forEach((n) => {
      const at = touching.get(n);
      if (at) at.push(i);
      else touching.set(n, [i]);
    }),
  );
  const out = body.slice();
  for (const name of candidates) {
    const at = (touching.get(name) ?? []).filter((i) => !(out[i].k === 'decl' && (out[i] as { name: string }).name === name && (out[i] as { init: Expr | null }).init?.k === 'num'));
    if (at.length !== 1) continue;
    const rewritten = rewriteIterationLocal([out[at[0]]], name);
    if (rewritten) out[at[0]] = rewritten[0];
  }
  return out;
}

/** the names of `wanted` that `s` declares or mentions, anywhere inside */
function namesTouched(s: Stmt, wanted: Set<string>): Set<string> {
  const found = new Set<string>();
  forEachStmtDeep(s, (x) => {
    if (x.k === 'decl' && wanted.has(x.name)) found.add(x.name);
    for (const e of stmtExprs(x))
      forEachExpr(e, (y) => {
        if (y.k === 'var' && wanted.has(y.name)) found.add(y.name);
      });
  });
  return found;
}

function touches(s: Stmt, name: string): boolean {
  let found = false;
  forEachStmtDeep(s, (x) => {
    if (x.k === 'decl' && x.name === name) found = true;
    for (const e of stmtExprs(x))
      forEachExpr(e, (y) => {
        if (y.k === 'var' && y.name === name) found = true;
      });
  });
  return found;
}

function forEachStmtDeep(s: Stmt, f: (x: Stmt) => void): void {
  f(s);
  switch (s.k) {
    case 'if':
      s.then.forEach((x) => forEachStmtDeep(x, f));
      s.else.forEach((x) => forEachStmtDeep(x, f));
      break;
    case 'for':
      [...s.init, ...s.update, ...s.body].forEach((x) => forEachStmtDeep(x, f));
      break;
    case 'while':
    case 'do':
    case 'block':
      s.body.forEach((x) => forEachStmtDeep(x, f));
      break;
    case 'switch':
      s.cases.forEach((c) => c.body.forEach((x) => forEachStmtDeep(x, f)));
      break;
    default:
      break;
  }
}

type Loop = Extract<Stmt, { k: 'for' | 'while' | 'do' }>;

/** the innermost loop of `list` holding every statement that touches `name`, when there is one */
function innermostLoop(list: Stmt[], name: string): Loop | null {
  const touching = list.filter((s) => touches(s, name) && !(s.k === 'decl' && s.name === name && s.init?.k === 'num'));
  if (touching.length !== 1) return null;
  const s = touching[0];
  if (s.k === 'for' || s.k === 'while' || s.k === 'do') {
    const inner = s.body.filter((x) => touches(x, name));
    const nested = inner.length === 1 ? innermostLoop(s.body, name) : null;
    return nested ?? s;
  }
  if (s.k === 'block') return innermostLoop(s.body, name);
  if (s.k === 'if') {
    const t = s.then.some((x) => touches(x, name));
    const e = s.else.some((x) => touches(x, name));
    if (t === e) return null;
    return innermostLoop(t ? s.then : s.else, name);
  }
  return null;
}

/** `value` with its leftmost operand (`name`) dropped: `name + a - b` → `a - b`, `name - a` → `-a` */
function dropLeftmost(value: Expr, name: string): Expr | null {
  if (value.k !== 'bin' || (value.op !== '+' && value.op !== '-')) return null;
  if (value.a.k === 'var' && value.a.name === name) {
    return value.op === '+' ? value.b : { k: 'un', op: '-', a: value.b, ty: value.ty };
  }
  const a = dropLeftmost(value.a, name);
  return a && { ...value, a };
}

function rewriteIterationLocal(body: Stmt[], name: string): Stmt[] | null {
  const loop = innermostLoop(body, name);
  if (!loop) return null;
  // the loop's own control must not touch it, and every iteration must run to its end
  let jumps = false;
  loop.body.forEach((s) =>
    forEachStmtDeep(s, (x) => {
      if (x.k === 'break' || x.k === 'continue' || x.k === 'return' || x.k === 'throw') jumps = true;
    }),
  );
  if (jumps) return null;
  const control: Expr[] = loop.k === 'for' ? (loop.cond ? [loop.cond] : []) : [loop.cond];
  if (control.some((e) => readsName(e, name)) || (loop.k === 'for' && [...loop.init, ...loop.update].some((s) => touches(s, name)))) return null;
  const idx = loop.body.map((s, i) => (touches(s, name) ? i : -1)).filter((i) => i >= 0);
  if (idx.length < 2) return null;
  const first = loop.body[idx[0]];
  const last = loop.body[idx[idx.length - 1]];
  if (first.k !== 'assign' || first.target.k !== 'var' || first.target.name !== name) return null;
  if (!isReset(last, first.target)) return null;
  const value = dropLeftmost(first.value, name);
  if (!value || readsName(value, name)) return null;
  const newBody = loop.body.filter((s) => s !== last).map((s) => (s === first ? { ...first, value } : s));
  return replaceStmt(body, loop, { ...loop, body: newBody } as Stmt);
}

function readsName(e: Expr, name: string): boolean {
  let found = false;
  forEachExpr(e, (x) => {
    if (x.k === 'var' && x.name === name) found = true;
  });
  return found;
}

/** `list` with the statement `from` (anywhere inside) replaced by `to` */
function replaceStmt(list: Stmt[], from: Stmt, to: Stmt): Stmt[] {
  return list.map((s): Stmt => (s === from ? to : mapBodies(s, (l) => replaceStmt(l, from, to))));
}
