// Nullable number variables that are assigned again: `let best: number | null = null;` updated in a
// loop (`if (best === null || v < best) best = v;`), `let prev: number | undefined;` then `prev = x`;
// and nullable arrays likewise (`let prev: number[] | null = null;` then `prev = p`).
//
// The derivative code cannot hold "no number" in a float it records, restores and differentiates, so
// such a variable becomes two: the number itself (0 while absent, its derivative 0 with it; an array:
// an empty one) and a passive flag saying whether it holds one. The front end lowers the variable as a nullable one
// (reads narrowed by the checker are its number, tests compare it with null/undefined); this pass
// then rewrites the function's IR:
//   - the declaration declares both: `let best = 0; let bestIsSet = false;`;
//   - `best = e` assigns the number and sets the flag; `best = null` clears the flag;
//   - a test `best === null` (`!==`, `==`, `!=`, with null or undefined) is the flag's negation (or it);
//   - a read the checker narrowed is the number;
//   - any other read (`return best`, `typeof best`, `best ?? 0` as lowered) is `bestIsSet ? best : null`.
// Only numbers with one kind of absence (null or undefined, not both: a strict test could not tell
// them apart) are split; the flag's initial value follows the declaration's.
//
// A function returning a nullable array (`solve(A, b): number[] | null`) is split the same way: it
// returns the pair `[array, isSet]` (an empty array while absent), and a call is followed only where
// its result is named, `const x = solve(A, b)` (or `let`, or `x = solve(…)`), which declares the
// split variable from the pair; `return solve(…)` in another such function passes the pair on; a
// call asserted present (`solve(A, b)!`) throws where the original would fail on the first read.
import type { Expr, Loc, NoneKind, Stmt, Ty } from '../ir/types.js';
import { BOOL, forEachExpr, forEachStmt, mapBodies, mapExpr, stmtExprs, tyOf } from '../ir/util.js';
import { NULL } from './nullable.js';

/**
 * a nullable type this pass splits: a number (or integer), or a plain array (`let prev: number[] |
 * null`, the previous point of a loop), with exactly one kind of absence
 */
export function isSplittable(ty: Ty): ty is Extract<Ty, { k: 'opt' }> {
  const base = ty.k === 'opt' && (ty.base.k === 'num' || ty.base.k === 'int' || (ty.base.k === 'arr' && !ty.base.typed));
  return base && ty.none.length === 1 && ty.none[0] !== 'false';
}

/** what a split variable holds while absent: 0, or an empty array (never read until set) */
function placeholder(base: Ty): Expr {
  return base.k === 'arr' ? { k: 'arrlit', elems: [], ty: base } : { k: 'num', v: 0 };
}

interface Split {
  flag: string;
  base: Ty;
  none: NoneKind;
}

type Nullable = Extract<Ty, { k: 'opt' }>;

/** a function result this pass splits: a nullable plain array, returned as `[array, isSet]` */
export function isSplitResult(ty: Ty): ty is Nullable {
  return isSplittable(ty) && ty.base.k === 'arr';
}

/** the type of the pair a split result is returned as */
export function resultPair(ty: Nullable): Ty {
  return { k: 'tuple', elems: [ty.base, BOOL], ro: false };
}

/** What splitting needs from the function's lowering: the callees returning split results, and where to refuse. */
export interface SplitHost {
  fresh(base: string): string;
  /** the declared nullable result of the module function `fn`, when it is returned as a pair */
  splitResult(fn: string): Nullable | null;
  refuse(loc: Loc | undefined, msg: string, hint: string): void;
}

const pairRead = (pair: string, ty: Ty, at: number, elem: Ty): Expr => ({ k: 'idx', obj: { k: 'var', name: pair, ty }, index: { k: 'num', v: at }, ty: elem });

const isNothing = (e: Expr): boolean => e.k === 'undef' || (e.k === 'raw' && e.text === 'null');
const absent = (none: NoneKind): Expr => (none === 'null' ? NULL : { k: 'undef' });

/**
 * The function body with each mutable nullable number split into a number and a flag (see the head
 * comment). `fresh` names the flags.
 */
export function splitNullableLocals(body: Stmt[], h: SplitHost): Stmt[] {
  const splits = new Map<string, Split>();
  const isSplitCall = (e: Expr | null): e is Extract<Expr, { k: 'call' }> => e?.k === 'call' && !!h.splitResult(e.fn);
  forEachStmt(body, (s) => {
    if (s.k === 'decl' && (!s.konst || isSplitCall(s.init)) && isSplittable(s.ty)) splits.set(s.name, { flag: h.fresh(`${s.name}IsSet`), base: s.ty.base, none: s.ty.none[0] });
  });
  let calls = false;
  forEachStmt(body, (s) => (calls ||= (s.k === 'decl' && isSplitCall(s.init)) || (s.k === 'assign' && isSplitCall(s.value))));
  return splits.size || calls ? rewriteList(body, splits, h) : body;
}

/**
 * Refuses each call of a split-result function left where its pair is not taken apart (an argument, a
 * test, `??`): run on the finished body, after `returnPairs`.
 */
export function refuseUnnamedResults(body: Stmt[], h: SplitHost): void {
  forEachStmt(body, (s) => {
    for (const e of stmtExprs(s))
      forEachExpr(e, (x) => {
        const result = x.k === 'call' && tyOf(x).k !== 'tuple' ? h.splitResult(x.fn) : null;
        if (!result || x.k !== 'call') return;
        const none = result.none[0];
        h.refuse(x.loc ?? s.loc, `'${x.fn}' returns an array or ${none}: tsad follows such a result where it is named, not inside an expression`, `name it first, \`const r = ${x.fn}(…);\`, then test \`r === ${none}\` and read \`r\` where it holds an array`);
      });
  });
}

function rewriteList(list: Stmt[], splits: Map<string, Split>, h: SplitHost): Stmt[] {
  const out: Stmt[] = [];
  const ex = (e: Expr) => rewriteExpr(e, splits);
  for (const s of list) {
    const loc = s.loc;
    if (s.k === 'decl' && splits.has(s.name) && (!s.konst || s.init?.k === 'call')) {
      const sp = splits.get(s.name)!;
      out.push(...setBoth(s.name, sp, s.init ? ex(s.init) : absent(sp.none), loc, h, true));
      continue;
    }
    if (s.k === 'assign' && s.target.k === 'var' && splits.has(s.target.name) && tyOf(s.target).k === 'opt') {
      out.push(...setBoth(s.target.name, splits.get(s.target.name)!, ex(s.value), loc, h, false));
      continue;
    }
    // a result asserted present (`const x = solve(A, b)!`): the array of the pair, after a test that
    // throws as the original's first read of null would
    const asserted = s.k === 'decl' ? s.init : s.k === 'assign' ? s.value : null;
    if (asserted?.k === 'call' && h.splitResult(asserted.fn) && (s.k === 'decl' || s.k === 'assign')) {
      out.push(...takeAsserted(s, { ...asserted, args: asserted.args.map(ex) }, h));
      continue;
    }
    switch (s.k) {
      case 'decl':
        out.push({ ...s, init: s.init ? ex(s.init) : null });
        break;
      case 'assign':
        out.push({ ...s, target: ex(s.target) as typeof s.target, value: ex(s.value) });
        break;
      case 'expr':
        out.push({ ...s, e: ex(s.e) });
        break;
      case 'if':
        out.push({ ...s, c: ex(s.c), then: rewriteList(s.then, splits, h), else: rewriteList(s.else, splits, h) });
        break;
      case 'for':
        out.push({ ...s, init: rewriteList(s.init, splits, h), cond: s.cond ? ex(s.cond) : null, update: rewriteList(s.update, splits, h), body: rewriteList(s.body, splits, h) });
        break;
      case 'while':
      case 'do':
        out.push({ ...s, cond: ex(s.cond), body: rewriteList(s.body, splits, h) });
        break;
      case 'block':
        out.push({ ...s, body: rewriteList(s.body, splits, h) });
        break;
      case 'switch':
        out.push({ ...s, disc: ex(s.disc), cases: s.cases.map((c) => ({ tests: c.tests ? c.tests.map(ex) : null, body: rewriteList(c.body, splits, h) })) });
        break;
      case 'return':
        out.push({ ...s, e: s.e ? ex(s.e) : null });
        break;
      case 'throw':
        out.push({ ...s, e: ex(s.e) });
        break;
      default:
        out.push(s);
    }
  }
  return out;
}

/**
 * The statements that give a split variable the value `v`: absent clears the flag (the number keeps
 * what it held, unread until set again); a number sets both; a nullable value is named, then tested.
 */
function setBoth(name: string, sp: Split, v: Expr, loc: Stmt['loc'], h: SplitHost, declare: boolean): Stmt[] {
  const fresh = (b: string) => h.fresh(b);
  const num = (value: Expr): Stmt => (declare ? { k: 'decl', name, ty: sp.base, init: value, konst: false, loc } : { k: 'assign', target: { k: 'var', name, ty: sp.base }, value, loc });
  const flag = (value: Expr): Stmt => (declare ? { k: 'decl', name: sp.flag, ty: BOOL, init: value, konst: false, loc, origin: 'nullable.split' } : { k: 'assign', target: { k: 'var', name: sp.flag, ty: BOOL }, value, loc, origin: 'nullable.split' });
  const zero = placeholder(sp.base);
  // a split result: its pair named, then taken apart
  const result = v.k === 'call' ? h.splitResult(v.fn) : null;
  if (v.k === 'call' && result) {
    const pair = fresh(`${name}Result`);
    const pt = resultPair(result);
    return [
      { k: 'decl', name: pair, ty: pt, init: { ...v, ty: pt }, konst: true, loc, origin: 'nullable.result' },
      num(pairRead(pair, pt, 0, sp.base)),
      flag(pairRead(pair, pt, 1, BOOL)),
    ];
  }
  if (isNothing(v)) return declare ? [num(zero), flag({ k: 'bool', v: false })] : [flag({ k: 'bool', v: false })];
  const t = tyOf(v);
  if (t.k !== 'opt') return [num(v), flag({ k: 'bool', v: true })];
  // an array chosen or absent (`last = c ? p : undefined`): an `if`, so no nullable array is ever held
  if (sp.base.k === 'arr' && v.k === 'cond' && (isNothing(v.a) || isNothing(v.b))) {
    const first = declare ? setBoth(name, sp, absent(sp.none), loc, h, true) : [];
    return [...first, { k: 'if', c: v.c, then: setBoth(name, sp, v.a, loc, h, false), else: setBoth(name, sp, v.b, loc, h, false), loc }];
  }
  // a nullable value (`best = other`, `best = c ? v : null`): named, its presence is the flag
  const held = fresh(`${name}Value`);
  const read: Expr = { k: 'var', name: held, ty: t };
  const present: Expr = t.none.map((n): Expr => ({ k: 'bin', op: '!==', a: read, b: absent(n), ty: BOOL })).reduce((a, b) => ({ k: 'bin', op: '&&', a, b, ty: BOOL }));
  const flagRead: Expr = { k: 'var', name: sp.flag, ty: BOOL };
  const keep: Expr = declare ? zero : { k: 'var', name, ty: sp.base };
  return [
    { k: 'decl', name: held, ty: t, init: v, konst: true, loc },
    flag(present),
    num({ k: 'cond', c: flagRead, a: { k: 'var', name: held, ty: sp.base, nn: true }, b: keep, ty: sp.base }),
  ];
}

function rewriteExpr(e: Expr, splits: Map<string, Split>): Expr {
  // (an array is truthy: `k ? k[1] : 0` and `!k` on a split array test its flag)
  const arrayFlag = (x: Expr): Expr | null => (x.k === 'cond' && isSplitRead(x, splits) && splits.get((x.a as { name: string }).name)!.base.k === 'arr' ? x.c : null);
  return mapExpr(e, (x) => {
    if (x.k === 'cond' && arrayFlag(x.c)) return { ...x, c: arrayFlag(x.c)! };
    if (x.k === 'un' && x.op === '!' && arrayFlag(x.a)) return { ...x, a: arrayFlag(x.a)! };
    // `best === null`, `null != best`, …: the flag
    if (x.k === 'bin' && (x.op === '===' || x.op === '!==' || x.op === '==' || x.op === '!=')) {
      const [v, other] = x.a.k === 'cond' && isSplitRead(x.a, splits) ? [x.a, x.b] : x.b.k === 'cond' && isSplitRead(x.b, splits) ? [x.b, x.a] : [null, null];
      if (v && other && isNothing(other)) {
        const flag = v.c;
        return x.op === '!==' || x.op === '!=' ? flag : { k: 'un', op: '!', a: flag, ty: BOOL };
      }
      return x;
    }
    if (x.k !== 'var' || !splits.has(x.name)) return x;
    const sp = splits.get(x.name)!;
    const number: Expr = { k: 'var', name: x.name, ty: sp.base };
    if (x.ty.k !== 'opt') return number; // narrowed by the checker: the number
    return { k: 'cond', c: { k: 'var', name: sp.flag, ty: BOOL }, a: number, b: absent(sp.none), ty: x.ty };
  });
}

/** the form rewriteExpr gives a read that was not narrowed: `flag ? number : null` */
function isSplitRead(e: Extract<Expr, { k: 'cond' }>, splits: Map<string, Split>): boolean {
  return e.c.k === 'var' && e.a.k === 'var' && splits.get(e.a.name)?.flag === e.c.name && isNothing(e.b);
}

/** `const x = solve(A, b)!`: the pair named, a throw where it holds no array, then its array */
function takeAsserted(s: Extract<Stmt, { k: 'decl' } | { k: 'assign' }>, call: Extract<Expr, { k: 'call' }>, h: SplitHost): Stmt[] {
  const result = h.splitResult(call.fn)!;
  const pt = resultPair(result);
  const pair = h.fresh(`${s.k === 'decl' ? s.name : call.fn}Result`);
  const missing: Expr = { k: 'un', op: '!', a: pairRead(pair, pt, 1, BOOL), ty: BOOL };
  const message = `new TypeError(${JSON.stringify(`${call.fn}(…) returned ${result.none[0]}`)})`;
  const array = pairRead(pair, pt, 0, result.base);
  return [
    { k: 'decl', name: pair, ty: pt, init: { ...call, ty: pt }, konst: true, loc: s.loc, origin: 'nullable.result' },
    { k: 'if', c: missing, then: [{ k: 'throw', e: { k: 'raw', text: message, ty: { k: 'void' } }, loc: s.loc }], else: [], loc: s.loc },
    s.k === 'decl' ? { ...s, init: array } : { ...s, value: array },
  ];
}

/**
 * The body of a function whose nullable array result is split: each `return` gives the pair `[array,
 * isSet]`. What a return may give: nothing (`null`), an array, a split variable read where it may be
 * absent, another split result, or a choice of these (`c ? v : null`); anything else is refused.
 */
export function returnPairs(body: Stmt[], result: Nullable, h: SplitHost, loc: Loc | undefined): Stmt[] {
  const pt = resultPair(result);
  const pair = (a: Expr, set: boolean | Expr): Expr => ({ k: 'arrlit', elems: [a, typeof set === 'boolean' ? { k: 'bool', v: set } : set], ty: pt });
  const give = (e: Expr | null, at: Stmt['loc']): Stmt[] => {
    const ret = (x: Expr): Stmt[] => [{ k: 'return', e: x, loc: at }];
    if (!e || isNothing(e)) return ret(pair(placeholder(result.base), false));
    if (e.k === 'call' && h.splitResult(e.fn)) return ret({ ...e, ty: pt });
    if (e.k === 'cond' && (isNothing(e.a) || isNothing(e.b))) return [{ k: 'if', c: e.c, then: give(e.a, at), else: give(e.b, at), loc: at }];
    if (tyOf(e).k !== 'opt') return ret(pair(e, true));
    h.refuse(at, 'this function returns an array or null, and tsad cannot tell here whether this value is absent', 'return `null` or an array on each path (`if (x === null) return null; return x;`)');
    return ret(pair(placeholder(result.base), false));
  };
  const each = (list: Stmt[]): Stmt[] => list.flatMap((s) => (s.k === 'return' ? give(s.e, s.loc) : [mapBodies(s, each)]));
  const out = each(body);
  // (a body that can end without `return` gives undefined: the absent pair)
  const last = out[out.length - 1];
  if (!last || (last.k !== 'return' && last.k !== 'throw')) out.push({ k: 'return', e: pair(placeholder(result.base), false), loc });
  return out;
}
