// Integer inference: a local is integer-valued only if every definition provably is one. Integer-valued
// (piecewise-constant) values never carry derivatives, so this also feeds activity.
import type { Expr, Func, Stmt } from '../ir/types.js';
import { INT, forEachExpr, forEachStmt } from '../ir/util.js';

const INTEGRAL_MATH = new Set(['Math.floor', 'Math.ceil', 'Math.round', 'Math.trunc', 'Math.sign']);

function isIntExpr(e: Expr, ints: Set<string>): boolean {
  switch (e.k) {
    case 'num':
      return Number.isInteger(e.v);
    case 'len':
      return true;
    case 'var':
      return e.ty.k === 'int' || ints.has(e.name);
    case 'un':
      return e.op === '~' || ((e.op === '-' || e.op === '+') && isIntExpr(e.a, ints));
    case 'bin':
      if (e.op === '|' || e.op === '&' || e.op === '^' || e.op === '<<' || e.op === '>>' || e.op === '>>>') return true;
      if (e.op === '+' || e.op === '-' || e.op === '*' || e.op === '%') return isIntExpr(e.a, ints) && isIntExpr(e.b, ints);
      return false;
    case 'cond':
      return isIntExpr(e.a, ints) && isIntExpr(e.b, ints);
    case 'intr':
      if (INTEGRAL_MATH.has(e.fn) || e.fn === 'tape.popI') return true;
      if (e.fn === 'Math.abs' || e.fn === 'Math.min' || e.fn === 'Math.max') return e.args.every((a) => isIntExpr(a, ints));
      return false;
    default:
      return false;
  }
}

/** Infers integer locals of `f` and retypes their declarations and uses to `int`, in place. */
export function inferInts(f: Func): Set<string> {
  const candidates = new Set<string>();
  const defs = new Map<string, Expr[]>();
  const addDef = (n: string, e: Expr) => {
    const l = defs.get(n);
    if (l) l.push(e);
    else defs.set(n, [e]);
  };
  forEachStmt(f.body, (s: Stmt) => {
    if (s.k === 'decl' && (s.ty.k === 'num' || s.ty.k === 'int')) {
      candidates.add(s.name);
      if (s.init) addDef(s.name, s.init);
    } else if (s.k === 'assign' && s.target.k === 'var') addDef(s.target.name, s.value);
  });
  for (const p of f.params) candidates.delete(p.name);
  const ints = new Set(candidates);
  for (let changed = true; changed; ) {
    changed = false;
    for (const n of [...ints]) {
      if (!(defs.get(n) ?? []).every((e) => isIntExpr(e, ints))) {
        ints.delete(n);
        changed = true;
      }
    }
  }
  const retype = (e: Expr) => {
    if (e.k === 'var' && ints.has(e.name)) (e as { ty: typeof INT }).ty = INT;
  };
  forEachStmt(f.body, (s) => {
    if (s.k === 'decl' && ints.has(s.name)) s.ty = INT;
    const visit = (e: Expr) => forEachExpr(e, retype);
    switch (s.k) {
      case 'decl':
        if (s.init) visit(s.init);
        break;
      case 'assign':
        visit(s.target);
        visit(s.value);
        break;
      case 'expr':
        visit(s.e);
        break;
      case 'if':
        visit(s.c);
        break;
      case 'for':
        if (s.cond) visit(s.cond);
        break;
      case 'while':
      case 'do':
        visit(s.cond);
        break;
      case 'switch':
        visit(s.disc);
        s.cases.forEach((c) => c.tests?.forEach(visit));
        break;
      case 'return':
        if (s.e) visit(s.e);
        break;
      default:
        break;
    }
  });
  return ints;
}
