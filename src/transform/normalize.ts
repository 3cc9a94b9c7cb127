// Normalizations before differentiation, IR → IR, keeping the user's structure where they can:
// user calls nested in expressions are evaluated into temporaries (Tapenade's `result1`), so that each
// differentiated call is a statement of its own; n-ary and spread min/max become binary ones.
import type { Expr, Func, Stmt, Ty } from '../ir/types.js';
import { BOOL, INT, NUM, containsCall, countedFor, declaredNames, exprEq, forEachExpr, isRef, mapExpr, rootVar, settleForHeader, tyOf } from '../ir/util.js';
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
  const kept = keepOrReplaceIntoIf(s);
  if (kept) {
    normalizeStmt(kept, names, out);
    return;
  }
  const moved = conditionIntoBody(s, names);
  if (moved) {
    normalizeStmt(moved, names, out);
    return;
  }
  const pre: Stmt[] = [];
  const top = (e: Expr, allowTopCall: boolean) => hoist(desugar(e), names, pre, allowTopCall);
  let r: Stmt;
  switch (s.k) {
    case 'decl':
      r = { ...s, init: s.init ? top(s.init, true) : null };
      break;
    case 'assign': {
      const target = objectIntoTemporary(indexIntoTemporary(s.target, names, pre), s.value, names, pre);
      // `a[k] += e` reads the element it writes: through the same constant index
      const value = top(target === s.target ? s.value : mapExpr(s.value, (x) => (exprEq(x, s.target) ? target : x)), true);
      r = { ...s, target, value };
      // printed as `t op= e` only while the value still reads the target itself first
      if (s.op && !(value.k === 'bin' && value.op === s.op && exprEq(value.a, target))) delete (r as { op?: unknown }).op;
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
      // (a spread min/max in the header is a loop before its statement: settleForHeader finds it a place)
      r = settleForHeader({ ...s, init: normalizeBody(s.init, names), cond: s.cond ? desugarInPlace(s.cond) : null, update: normalizeBody(s.update, names), body: normalizeBody(s.body, names) });
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
  // Operands are evaluated left to right. Once a later operand's call moves before the statement, an
  // earlier operand that reads an array element or field would see what the call wrote: it is
  // evaluated into a temporary first, keeping JavaScript's order.
  // (a user call's argument that is a row or object read from memory too: `h(m[0], g(m))` passes the
  // row m[0] held before g swapped rows; not an intrinsic's array, `this.layers.push(new Layer(…))`)
  const operands = (xs: Expr[], conditional: boolean, each: (x: Expr) => Expr = (x) => visit(x, false, conditional), rowsToo = false): Expr[] =>
    xs.map((x, i) => {
      const v = each(x);
      if (conditional || !(readsMemory(v) || (rowsToo && heldInMemory(v))) || !xs.slice(i + 1).some(containsCall)) return v;
      const name = names.fresh('temp');
      const ty = tyOf(v);
      pre.push({ k: 'decl', name, ty, init: v, konst: true, loc: x.loc });
      return { k: 'var' as const, name, ty };
    });
  const temporary = (ty: Ty, init: Expr | null): Expr & { k: 'var' } => {
    const name = names.fresh('temp');
    pre.push({ k: 'decl', name, ty, init, konst: false });
    return { k: 'var', name, ty };
  };
  // an array made where it stands and copied or viewed at once (`Float64Array.from(x).subarray(1)`) is
  // named first: a copy's or a view's derivative is that of a named array
  const named = (e: Expr): Expr => {
    if (!isRef(tyOf(e)) || rootVar(e)) return e;
    const name = names.fresh('made');
    pre.push({ k: 'decl', name, ty: tyOf(e), init: e, konst: true, loc: e.loc });
    return { k: 'var', name, ty: tyOf(e) };
  };
  const visit = (x: Expr, isTop: boolean, conditional: boolean): Expr => {
    switch (x.k) {
      case 'call': {
        const args = operands(
          x.args,
          conditional,
          (a) => {
            const v = visit(a, false, conditional);
            if ((v.k === 'arrlit' || v.k === 'objlit' || (v.k === 'intr' && v.fn === 'copy')) && !conditional) {
              // a literal or copied argument (`g(x.slice())`) is named, so that its derivative is an array
              // like any other (the copy's adjoint flows back into its source's)
              const name = names.fresh('arg');
              pre.push({ k: 'decl', name, ty: v.ty, init: v, konst: true, loc: a.loc });
              return { k: 'var' as const, name, ty: v.ty };
            }
            return v;
          },
          true,
        );
        const c = { ...x, args };
        if ((isTop && allowTopCall) || conditional) return c;
        const name = names.fresh(`${x.fn}Result`);
        pre.push({ k: 'decl', name, ty: x.ty, init: c, konst: true, loc: x.loc });
        return { k: 'var', name, ty: x.ty };
      }
      case 'bin':
        if ((x.op === '&&' || x.op === '||') && !conditional && (containsCall(x.b) || refChoiceBelow(x.b))) {
          // the call runs only when the left side allows it: a statement under that test
          const t = temporary(x.ty, visit(x.a, false, false));
          const rest: Stmt[] = [];
          normalizeStmt({ k: 'assign', target: t, value: x.b, loc: x.b.loc }, names, rest);
          pre.push({ k: 'if', c: x.op === '&&' ? t : { k: 'un', op: '!', a: t, ty: BOOL }, then: rest, else: [], loc: x.loc });
          return t;
        }
        if (x.op === '&&' || x.op === '||') return { ...x, a: visit(x.a, false, conditional), b: visit(x.b, false, true) };
        {
          const [a, b] = operands([x.a, x.b], conditional);
          return { ...x, a, b };
        }
      case 'un':
        return { ...x, a: visit(x.a, false, conditional) };
      case 'cond':
        // (so is a branch choosing an array it then indexes: `c ? (d ? a : b)[i] : 0`, named in its branch)
        if (!conditional && (containsCall(x.a) || containsCall(x.b) || refChoiceBelow(x.a) || refChoiceBelow(x.b))) {
          // a call on one branch only: an if/else assigning a temporary
          const c = visit(x.c, false, false);
          const t = temporary(x.ty, null);
          const then: Stmt[] = [], els: Stmt[] = [];
          normalizeStmt({ k: 'assign', target: t, value: x.a, loc: x.a.loc }, names, then);
          normalizeStmt({ k: 'assign', target: t, value: x.b, loc: x.b.loc }, names, els);
          pre.push({ k: 'if', c, then, else: els, loc: x.loc });
          return t;
        }
        {
          const v: Expr = { ...x, c: visit(x.c, false, conditional), a: visit(x.a, false, true), b: visit(x.b, false, true) };
          // an array or object chosen by a test and used where it stands (`(c ? a : b)[i]`, `(c ? p : q).y`,
          // an argument, a returned value) is named first: derivatives follow a named reference's aliases
          // (not a Float64Array beside a plain array: no one type holds both; unsupported.ts refuses it)
          if (!isRef(x.ty) || conditional || (isTop && allowTopCall) || !oneKind(x)) return v;
          const name = names.fresh('chosen');
          pre.push({ k: 'decl', name, ty: x.ty, init: v, konst: true, loc: x.loc });
          return { k: 'var', name, ty: x.ty };
        }
      case 'intr': {
        // (`o.arr.push(g(o))` pushes onto the array o.arr held before g ran, as an argument would)
        const args = operands(x.args, conditional, undefined, true);
        // a copy of something made where it stands (`[x].slice()`, `x.slice().slice()`) is that thing:
        // no one else holds it
        // (of the same kind: `Uint8Array.from([v])` converts its values, `Float64Array.from(x.slice())` its kind)
        if (x.fn === 'copy' && (args[0].k === 'arrlit' || (args[0].k === 'intr' && args[0].fn === 'copy')) && sameArrayKind(x.ty, tyOf(args[0]))) return args[0];
        // (and a copy or view of anything else made where it stands is of a named array)
        if ((x.fn === 'copy' || x.fn === 'snapshot') && !conditional) return { ...x, args: [named(args[0]), ...args.slice(1)] };
        return spreadOver({ ...x, args }, names, pre) ?? { ...x, args };
      }
      case 'idx':
        return { ...x, obj: visit(x.obj, false, conditional), index: visit(x.index, false, conditional) };
      case 'field':
      case 'len':
        return { ...x, obj: visit(x.obj, false, conditional) };
      case 'arrlit':
        return { ...x, elems: operands(x.elems, conditional) };
      case 'objlit': {
        const values = operands(x.fields.map((f) => f.value), conditional);
        return { ...x, fields: x.fields.map((f, i) => ({ name: f.name, value: values[i] })) };
      }
      case 'sub': {
        const sub = { ...x, obj: visit(x.obj, false, conditional), start: visit(x.start, false, conditional), end: x.end ? visit(x.end, false, conditional) : null };
        return conditional ? sub : { ...sub, obj: named(sub.obj) };
      }
      case 'alloc':
        return { ...x, len: visit(x.len, false, conditional), fill: x.fill ? visit(x.fill, false, conditional) : null };
      default:
        return x;
    }
  };
  return visit(e, true, false);
}

/** the choices of a conditional (through nested ones) all of one type kind */
export function oneKind(e: Expr): boolean {
  const leaves: Ty[] = [];
  const walk = (x: Expr): void => (x.k === 'cond' ? (walk(x.a), walk(x.b)) : void leaves.push(tyOf(x)));
  walk(e);
  return leaves.every((t) => t.k !== 'arr' || sameArrayKind(t, leaves[0]));
}

/** two array types of one kind: both plain arrays, or typed arrays of one constructor */
function sameArrayKind(a: Ty, b: Ty): boolean {
  return a.k === 'arr' && b.k === 'arr' && a.typed === b.typed && a.ctor === b.ctor;
}

/** an array or object chosen by a test somewhere below the top of `e` (the top itself is a plain alias) */
function refChoiceBelow(e: Expr): boolean {
  let found = false;
  forEachExpr(e, (x) => {
    if (x !== e && x.k === 'cond' && isRef(x.ty)) found = true;
  });
  return found;
}

/**
 * A loop condition that needs statements of its own (a user call, a spread reduction) is evaluated
 * inside the loop, so that the call is differentiated like any other: `while (c) B` becomes
 * `while (true) { if (!c) break; B }`, `for (I; c; U) B` becomes `for (I; ; U) { if (!c) break; B }`, and
 * `do B while (c)` becomes `do { B; if (!c) break; } while (true)` (with a first-pass flag instead when B
 * continues the loop, since a continue must still evaluate c).
 */
function conditionIntoBody(s: Stmt, names: Names): Stmt | null {
  if (s.k !== 'while' && s.k !== 'for' && s.k !== 'do') return null;
  const c = s.cond;
  if (!c || !needsStatements(c)) return null;
  const exit = (): Stmt => ({ k: 'if', c: { k: 'un', op: '!', a: c, ty: BOOL }, then: [{ k: 'break', label: s.label }], else: [], loc: c.loc ?? s.loc });
  const always: Expr = { k: 'bool', v: true };
  if (s.k === 'while') return { ...s, cond: always, body: [exit(), ...s.body] };
  if (s.k === 'for') return { ...s, cond: null, body: [exit(), ...s.body] };
  if (!continuesLoop(s.body, s.label)) return { ...s, cond: always, body: [...s.body, exit()] };
  const first = names.fresh('firstPass');
  const fv: Expr & { k: 'var' } = { k: 'var', name: first, ty: BOOL };
  return {
    k: 'block',
    body: [
      { k: 'decl', name: first, ty: BOOL, init: { k: 'bool', v: true }, konst: false },
      { k: 'while', label: s.label, cond: always, body: [{ k: 'if', c: { k: 'un', op: '!', a: fv, ty: BOOL }, then: [exit()], else: [] }, { k: 'assign', target: fv, value: { k: 'bool', v: false } }, ...s.body], loc: s.loc, comments: s.comments },
    ],
  };
}

function needsStatements(e: Expr): boolean {
  let found = false;
  forEachExpr(e, (x) => {
    if (x.k === 'call' || (x.k === 'intr' && /^Math\.(min|max|hypot)Of$/.test(x.fn))) found = true;
  });
  return found;
}

/** does `body` continue the loop it is the body of (unlabelled outside inner loops, or by `label`)? */
function continuesLoop(body: Stmt[], label: string | undefined): boolean {
  let found = false;
  const visit = (ss: Stmt[], inner: boolean) => {
    for (const s of ss) {
      if (s.k === 'continue' && ((!s.label && !inner) || (s.label && s.label === label))) found = true;
      else if (s.k === 'if') {
        visit(s.then, inner);
        visit(s.else, inner);
      } else if (s.k === 'for' || s.k === 'while' || s.k === 'do') visit(s.body, true);
      else if (s.k === 'block') visit(s.body, inner);
      else if (s.k === 'switch') s.cases.forEach((c) => visit(c.body, inner));
    }
  };
  visit(body, false);
  return found;
}

/**
 * `a[k(a[1])] = e`: an index that reads memory is evaluated into a constant first. The statement may
 * change what the index reads (here when k(a[1]) is 1), and the adjoint evaluates the index again after
 * the statement: it must find the same element.
 */
function indexIntoTemporary(target: Extract<Stmt, { k: 'assign' }>['target'], names: Names, pre: Stmt[]): Extract<Stmt, { k: 'assign' }>['target'] {
  if (target.k === 'var' || !hasMemoryIndex(target)) return target;
  const obj = target.obj.k === 'idx' || target.obj.k === 'field' ? indexIntoTemporary(target.obj, names, pre) : target.obj;
  if (target.k === 'field') return { ...target, obj };
  let index = target.index;
  if (readsMemory(index)) {
    const name = names.fresh('index');
    const ty = tyOf(index);
    pre.push({ k: 'decl', name, ty, init: index, konst: true, loc: index.loc });
    index = { k: 'var', name, ty };
  }
  return { ...target, obj, index };
}

/**
 * `m[0][1] = g(m)`: JavaScript takes the row `m[0]` before it evaluates the value, so a call there that
 * moves rows (a swap) does not change which row is written. The calls move before the statement: the
 * row (or object) is taken into a temporary before them.
 */
function objectIntoTemporary(target: Extract<Stmt, { k: 'assign' }>['target'], value: Expr, names: Names, pre: Stmt[]): Extract<Stmt, { k: 'assign' }>['target'] {
  if (target.k === 'var' || (target.obj.k !== 'idx' && target.obj.k !== 'field') || !containsCall(value)) return target;
  const name = names.fresh(target.obj.k === 'idx' ? 'row' : 'held');
  const ty = tyOf(target.obj);
  pre.push({ k: 'decl', name, ty, init: target.obj, konst: true, loc: target.obj.loc });
  return { ...target, obj: { k: 'var', name, ty } };
}

function hasMemoryIndex(t: Expr): boolean {
  if (t.k === 'idx') return readsMemory(t.index) || hasMemoryIndex(t.obj);
  if (t.k === 'field') return hasMemoryIndex(t.obj);
  return false;
}

/** an array or object taken from an element or field (a callee may put another one there) */
function heldInMemory(e: Expr): boolean {
  return (e.k === 'idx' || e.k === 'field') && isRef(e.ty);
}

/** reads an array element or object field (a callee may write those) */
function readsMemory(e: Expr): boolean {
  let found = false;
  forEachExpr(e, (x) => {
    if ((x.k === 'idx' || x.k === 'field') && !isRef(x.ty)) found = true;
  });
  return found;
}

/** n-ary min/max → nested binary (spread ones are taken where they are evaluated: hoist's spreadOver) */
function desugar(e: Expr): Expr {
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
    return x;
  });
}

/**
 * Spread min/max over an array → a loop before the statement; spread hypot → its own constant. Taken
 * where the expression evaluates it, after the calls before it (`bump(a) + Math.hypot(...a)` reads the
 * array `bump` changed) and before those after it; null for any other intrinsic.
 */
function spreadOver(x: Extract<Expr, { k: 'intr' }>, names: Names, pre: Stmt[]): Expr | null {
  if (x.fn === 'Math.hypotOf') {
    // kept whole: a loop of two-argument hypot calls rounds differently; its derivative is a dot product
    const norm = names.fresh('norm');
    pre.push({ k: 'decl', name: norm, ty: NUM, init: x, konst: true, loc: x.loc });
    return { k: 'var', name: norm, ty: NUM };
  }
  const m = /^Math\.(min|max)Of$/.exec(x.fn);
  if (!m) return null;
  const fn = `Math.${m[1]}`;
  const acc = names.fresh(m[1] === 'min' ? 'least' : 'most');
  const i = names.fresh('i');
  const accV: Expr = { k: 'var', name: acc, ty: NUM };
  const iV: Expr = { k: 'var', name: i, ty: INT };
  const init = m[1] === 'min' ? Infinity : -Infinity;
  pre.push({ k: 'decl', name: acc, ty: NUM, init: { k: 'num', v: init }, konst: false, loc: x.loc });
  pre.push({ ...countedFor(i, { k: 'len', obj: x.args[0] }, [{ k: 'assign', target: accV as Extract<Expr, { k: 'var' }>, value: { k: 'intr', fn, args: [accV, { k: 'idx', obj: x.args[0], index: iV, ty: NUM }], ty: NUM } }]), loc: x.loc });
  return accV;
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

/**
 * `v = c ? e : v` (a reduce callback's `(a, x) => (x > a ? x : a)`) becomes `if (c) v = e;`, and
 * `v = c ? v : e` becomes `if (!c) v = e;`: the same evaluation, but as a branch the adjoint can treat
 * a scan for the largest element as a selection loop, reversing only the last iteration taken, where a
 * conditional value records the target and the choice in every iteration.
 */
function keepOrReplaceIntoIf(s: Stmt): Stmt | null {
  if (s.k !== 'assign' || s.op || s.target.k !== 'var' || s.value.k !== 'cond' || s.value.sc) return null;
  const { c, a, b } = s.value;
  const same = (x: Expr) => x.k === 'var' && x.name === (s.target as { name: string }).name;
  if (same(b) && !same(a)) return { k: 'if', c, then: [{ k: 'assign', target: s.target, value: a, loc: s.loc }], else: [], loc: s.loc, comments: s.comments };
  if (same(a) && !same(b)) return { k: 'if', c: { k: 'un', op: '!', a: c, ty: BOOL }, then: [{ k: 'assign', target: s.target, value: b, loc: s.loc }], else: [], loc: s.loc, comments: s.comments };
  return null;
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
