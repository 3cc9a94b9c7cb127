// Inlining of small leaf functions called from the iterations of a loop over data points, for the
// adjoint only. Such a loop becomes a fused reduction (both sweeps of an iteration back to back); a call
// in it would still run its own forward and backward sweeps, whose values travel through the tape
// (GMM's log-sum-exp per point: a taken index, a buffer of exponentials and a sum, pushed and popped
// each point). Written out in the iteration, the same values stay in locals and slot buffers. The
// callee's locals are renamed; its parameters become the caller's arguments.
import type { Expr, Func, Module, Stmt } from '../ir/types.js';
import { declaredNames, forEachExpr, forEachStmt, isRef, loopNestDepth, mapExpr, mapStmts, sameTy, stmtExprs, tyOf } from '../ir/util.js';
import { Names } from './linearize.js';

/** statements a callee may have, all nested statements counted */
const MAX_INLINED_STATEMENTS = 30;

/** `mod` with eligible calls in data-point loops inlined (functions without such calls are kept as they are) */
export function inlineLeafCalls(mod: Module): Module {
  const funcs = new Map(mod.funcs);
  for (const name of mod.order) {
    const f = mod.funcs.get(name);
    if (!f) continue;
    const g = inlineInFunc(f, mod);
    if (g !== f) funcs.set(name, g);
  }
  return { ...mod, funcs };
}

function inlineInFunc(f: Func, mod: Module): Func {
  let names: Names | null = null;
  let changed = false;
  const body = f.body.map((s): Stmt => {
    if (s.k !== 'for' || loopNestDepth(s.body) < 2) return s;
    const inner: Stmt[] = [];
    for (const x of s.body) {
      const site = callSite(x);
      const callee = site && site.fn !== f.name ? inlinable(mod, site.fn) : null;
      if (!site || !callee || hasDirective(x) || !argsFit(callee, site.args)) {
        inner.push(x);
        continue;
      }
      names ??= new Names([...declaredNames(f), ...mod.globals.keys(), ...mod.funcs.keys()]);
      inner.push(...expand(callee, site.args, x, names));
      changed = true;
    }
    return changed ? { ...s, body: inner } : s;
  });
  return changed ? { ...f, body } : f;
}

/** `const r = g(…)` or `r = g(…)`: the call whose result one statement takes */
function callSite(s: Stmt): { fn: string; args: Expr[] } | null {
  const v = s.k === 'decl' ? s.init : s.k === 'assign' && s.target.k === 'var' && !s.op ? s.value : null;
  return v && v.k === 'call' ? { fn: v.fn, args: v.args } : null;
}

function hasDirective(s: { comments?: string[] }): boolean {
  return (s.comments ?? []).some((c) => c.includes('$ad'));
}

/**
 * A callee worth inlining and safe to: small, calling no user function, returning once at its end, never
 * assigning a parameter as a whole, without defaults or directives.
 */
function inlinable(mod: Module, fn: string): Func | null {
  const g = mod.funcs.get(fn);
  // (a hand-written rule, a passive function or a black box is never differentiated through its body)
  if (!g || g.custom || g.external || mod.failed.has(fn) || hasDirective(g) || g.params.some((p) => p.def)) return null;
  const last = g.body[g.body.length - 1];
  if (!last || last.k !== 'return' || !last.e) return null;
  const params = new Set(g.params.map((p) => p.name));
  let count = 0;
  let ok = true;
  forEachStmt(g.body, (s) => {
    count++;
    if ((s.k === 'return' && s !== last) || hasDirective(s)) ok = false;
    if (s.k === 'assign' && s.target.k === 'var' && params.has(s.target.name)) ok = false;
    if (s.k === 'decl' && params.has(s.name)) ok = false;
    for (const e of stmtExprs(s))
      forEachExpr(e, (x) => {
        if (x.k === 'call') ok = false;
      });
  });
  return ok && count <= MAX_INLINED_STATEMENTS ? g : null;
}

/** arrays and objects are passed as variables of the parameter's own type (they are substituted) */
function argsFit(g: Func, args: Expr[]): boolean {
  if (args.length !== g.params.length) return false;
  // (an absent argument bound to a constant would be narrowed by TypeScript to absent, and the callee's
  // tests of it, `o !== undefined && o!.u`, read as reads of `never`: the call stays)
  if (args.some((a) => a.k === 'undef' || (a.k === 'raw' && a.text === 'null'))) return false;
  // (a reference or nullable parameter is substituted by the argument's name: its type must be the parameter's)
  return g.params.every((p, i) => (!isRef(p.ty) && p.ty.k !== 'opt') || (args[i].k === 'var' && sameTy(tyOf(args[i]), p.ty)));
}

/** the callee's body in place of the call statement `site`, its result going where the call's went */
function expand(g: Func, args: Expr[], site: Stmt, names: Names): Stmt[] {
  const bound = new Map<string, Expr>();
  const pre: Stmt[] = [];
  g.params.forEach((p, i) => {
    const a = args[i];
    if (a.k === 'var' || a.k === 'num' || a.k === 'bool' || a.k === 'str') bound.set(p.name, a);
    else {
      // a computed scalar argument is evaluated once, as the call did
      const n = names.fresh(p.name);
      pre.push({ k: 'decl', name: n, ty: p.ty, init: a, konst: true });
      bound.set(p.name, { k: 'var', name: n, ty: p.ty });
    }
  });
  const params = new Set(g.params.map((p) => p.name));
  const renamed = new Map<string, string>();
  for (const n of declaredNames(g)) if (!params.has(n)) renamed.set(n, names.fresh(n));
  const subst = (e: Expr): Expr =>
    e.k !== 'var' ? e : bound.has(e.name) ? { ...bound.get(e.name)! } : renamed.has(e.name) ? { ...e, name: renamed.get(e.name)! } : e;
  const body = mapStmts(g.body.slice(0, -1), subst);
  forEachStmt(body, (s) => {
    if (s.k === 'decl' && renamed.has(s.name)) s.name = renamed.get(s.name)!;
  });
  const ret = g.body[g.body.length - 1] as Extract<Stmt, { k: 'return' }>;
  const value = mapExpr(ret.e!, subst);
  const result: Stmt = site.k === 'decl' ? { ...site, init: value } : { ...(site as Extract<Stmt, { k: 'assign' }>), value };
  const out = [...pre, ...body, result];
  const shown = args.length <= 3 ? `(${args.map(argText).join(', ')})` : '(…)';
  out[0] = { ...out[0], comments: [...(site.comments ?? []), `// inlined for the adjoint: ${g.name}${shown}`, ...(out[0].comments ?? [])] };
  return out;
}

function argText(e: Expr): string {
  return e.k === 'var' ? e.name : e.k === 'num' ? String(e.v) : '…';
}
