// Normalizations before differentiation, IR → IR, keeping the user's structure where they can:
// user calls nested in expressions are evaluated into temporaries (Tapenade's `result1`), so that each
// differentiated call is a statement of its own; n-ary and spread min/max/hypot become binary ones.
import type { Expr, Func, Stmt } from '../ir/types.js';
import { BOOL, INT, NUM, containsCall, declaredNames, mapExpr } from '../ir/util.js';
import { Names } from './linearize.js';

export function normalizeFunc(f: Func): Func {
  const names = new Names(declaredNames(f));
  return { ...f, body: normalizeBody(f.body, names) };
}

function normalizeBody(body: Stmt[], names: Names): Stmt[] {
  const out: Stmt[] = [];
  for (const s of body) normalizeStmt(s, names, out);
  return out;
}

function normalizeStmt(s: Stmt, names: Names, out: Stmt[]): void {
  // `return c ? a : g(x)` and `v = c ? a : g(x)`: calls evaluated only on one branch become an if/else
  const split = splitConditionalCall(s, names);
  if (split) {
    for (const x of split) normalizeStmt(x, names, out);
    return;
  }
  const pre: Stmt[] = [];
  const top = (e: Expr, allowTopCall: boolean) => hoist(desugar(e, names, pre), names, pre, allowTopCall);
  let r: Stmt;
  switch (s.k) {
    case 'decl':
      r = { ...s, init: s.init ? top(s.init, true) : null };
      break;
    case 'assign': {
      const target = mapExpr(s.target, (x) => x) as typeof s.target;
      const value = top(s.value, true);
      r = { ...s, target, value };
      if (s.op && !(value.k === 'bin' && value.op === s.op)) delete (r as { op?: unknown }).op;
      break;
    }
    case 'expr':
      r = { ...s, e: top(s.e, true) };
      break;
    case 'return':
      r = { ...s, e: s.e ? top(s.e, false) : null };
      break;
    case 'if':
      r = { ...s, c: top(s.c, false), then: normalizeBody(s.then, names), else: normalizeBody(s.else, names) };
      break;
    case 'switch':
      r = { ...s, disc: top(s.disc, false), cases: s.cases.map((c) => ({ tests: c.tests, body: normalizeBody(c.body, names) })) };
      break;
    case 'for':
      r = { ...s, init: normalizeBody(s.init, names), cond: s.cond ? desugarInPlace(s.cond) : null, update: normalizeBody(s.update, names), body: normalizeBody(s.body, names) };
      break;
    case 'while':
      r = { ...s, cond: desugarInPlace(s.cond), body: normalizeBody(s.body, names) };
      break;
    case 'do':
      r = { ...s, cond: desugarInPlace(s.cond), body: normalizeBody(s.body, names) };
      break;
    case 'block':
      r = { ...s, body: normalizeBody(s.body, names) };
      break;
    default:
      r = s;
  }
  if (pre.length && s.comments) {
    pre[0].comments = s.comments;
    r = { ...r, comments: undefined };
  }
  out.push(...pre, r);
}

/** Evaluates user calls below the top of `e` into temporaries, innermost first. */
function hoist(e: Expr, names: Names, pre: Stmt[], allowTopCall: boolean): Expr {
  const visit = (x: Expr, isTop: boolean, conditional: boolean): Expr => {
    switch (x.k) {
      case 'call': {
        const args = x.args.map((a) => {
          const v = visit(a, false, conditional);
          if ((v.k === 'arrlit' || v.k === 'objlit') && !conditional) {
            // a literal argument is named, so that its derivative is an array like any other
            const name = names.fresh('arg');
            pre.push({ k: 'decl', name, ty: v.ty, init: v, konst: true, loc: a.loc });
            return { k: 'var' as const, name, ty: v.ty };
          }
          return v;
        });
        const c = { ...x, args };
        if ((isTop && allowTopCall) || conditional) return c;
        const name = names.fresh(`${x.fn}Result`);
        pre.push({ k: 'decl', name, ty: x.ty, init: c, konst: true, loc: x.loc });
        return { k: 'var', name, ty: x.ty };
      }
      case 'bin':
        if (x.op === '&&' || x.op === '||') return { ...x, a: visit(x.a, false, conditional), b: visit(x.b, false, true) };
        return { ...x, a: visit(x.a, false, conditional), b: visit(x.b, false, conditional) };
      case 'un':
        return { ...x, a: visit(x.a, false, conditional) };
      case 'cond':
        return { ...x, c: visit(x.c, false, conditional), a: visit(x.a, false, true), b: visit(x.b, false, true) };
      case 'intr':
        return { ...x, args: x.args.map((a) => visit(a, false, conditional)) };
      case 'idx':
        return { ...x, obj: visit(x.obj, false, conditional), index: visit(x.index, false, conditional) };
      case 'field':
      case 'len':
        return { ...x, obj: visit(x.obj, false, conditional) };
      case 'arrlit':
        return { ...x, elems: x.elems.map((a) => visit(a, false, conditional)) };
      case 'objlit':
        return { ...x, fields: x.fields.map((f) => ({ name: f.name, value: visit(f.value, false, conditional) })) };
      case 'sub':
        return { ...x, obj: visit(x.obj, false, conditional), start: visit(x.start, false, conditional), end: x.end ? visit(x.end, false, conditional) : null };
      case 'alloc':
        return { ...x, len: visit(x.len, false, conditional), fill: x.fill ? visit(x.fill, false, conditional) : null };
      default:
        return x;
    }
  };
  return visit(e, true, false);
}

/** n-ary min/max → nested binary; spread min/max/hypot over an array → a loop before the statement. */
function desugar(e: Expr, names: Names, pre: Stmt[]): Expr {
  return mapExpr(e, (x) => {
    if (x.k !== 'intr') return x;
    if ((x.fn === 'Math.min' || x.fn === 'Math.max') && x.args.length > 2) {
      let acc = x.args[0];
      for (let i = 1; i < x.args.length; i++) acc = { k: 'intr', fn: x.fn, args: [acc, x.args[i]], ty: NUM };
      return acc;
    }
    if ((x.fn === 'Math.min' || x.fn === 'Math.max') && x.args.length < 2) {
      if (x.args.length === 1) return { k: 'intr', fn: x.fn, args: [x.args[0], { k: 'num', v: x.fn === 'Math.min' ? Infinity : -Infinity }], ty: NUM };
      return { k: 'num', v: x.fn === 'Math.min' ? Infinity : -Infinity };
    }
    const m = /^Math\.(min|max|hypot)Of$/.exec(x.fn);
    if (!m) return x;
    const fn = `Math.${m[1]}`;
    const acc = names.fresh(m[1] === 'hypot' ? 'norm' : m[1] === 'min' ? 'least' : 'most');
    const i = names.fresh('i');
    const accV: Expr = { k: 'var', name: acc, ty: NUM };
    const iV: Expr = { k: 'var', name: i, ty: INT };
    const init = m[1] === 'hypot' ? 0 : m[1] === 'min' ? Infinity : -Infinity;
    pre.push({ k: 'decl', name: acc, ty: NUM, init: { k: 'num', v: init }, konst: false, loc: x.loc });
    pre.push({
      k: 'for',
      init: [{ k: 'decl', name: i, ty: INT, init: { k: 'num', v: 0 }, konst: false }],
      cond: { k: 'bin', op: '<', a: iV, b: { k: 'len', obj: x.args[0] }, ty: BOOL },
      update: [{ k: 'assign', target: iV as Extract<Expr, { k: 'var' }>, value: { k: 'bin', op: '+', a: iV, b: { k: 'num', v: 1 }, ty: INT }, op: '+', inc: true }],
      body: [{ k: 'assign', target: accV as Extract<Expr, { k: 'var' }>, value: { k: 'intr', fn, args: [accV, { k: 'idx', obj: x.args[0], index: iV, ty: NUM }], ty: NUM } }],
      loc: x.loc,
    });
    return accV;
  });
}

function desugarInPlace(e: Expr): Expr {
  // loop conditions are evaluated repeatedly: only the expression-local rewrites apply there
  return mapExpr(e, (x) => {
    if (x.k === 'intr' && (x.fn === 'Math.min' || x.fn === 'Math.max') && x.args.length > 2) {
      let acc = x.args[0];
      for (let i = 1; i < x.args.length; i++) acc = { k: 'intr', fn: x.fn, args: [acc, x.args[i]], ty: NUM };
      return acc;
    }
    return x;
  });
}

function condWithCall(e: Expr | null | undefined): e is Extract<Expr, { k: 'cond' }> {
  return !!e && e.k === 'cond' && (containsCall(e.a) || containsCall(e.b));
}

function splitConditionalCall(s: Stmt, names: Names): Stmt[] | null {
  if (s.k === 'return' && condWithCall(s.e)) {
    const e = s.e;
    return [{ k: 'if', c: e.c, then: [{ k: 'return', e: e.a, loc: s.loc }], else: [{ k: 'return', e: e.b, loc: s.loc }], loc: s.loc, comments: s.comments }];
  }
  if (s.k === 'decl' && condWithCall(s.init)) {
    const e = s.init;
    const t = { k: 'var' as const, name: s.name, ty: s.ty };
    return [
      { k: 'decl', name: s.name, ty: s.ty, init: null, konst: false, loc: s.loc, comments: s.comments },
      { k: 'if', c: e.c, then: [{ k: 'assign', target: t, value: e.a }], else: [{ k: 'assign', target: t, value: e.b }], loc: s.loc },
    ];
  }
  if (s.k === 'assign' && !s.op && condWithCall(s.value)) {
    const e = s.value;
    return [{ k: 'if', c: e.c, then: [{ k: 'assign', target: s.target, value: e.a }], else: [{ k: 'assign', target: s.target, value: e.b }], loc: s.loc, comments: s.comments }];
  }
  void names;
  return null;
}
