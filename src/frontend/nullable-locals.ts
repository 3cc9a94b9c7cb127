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
import type { Expr, NoneKind, Stmt, Ty } from '../ir/types.js';
import { BOOL, forEachStmt, mapExpr, tyOf } from '../ir/util.js';
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

const isNothing = (e: Expr): boolean => e.k === 'undef' || (e.k === 'raw' && e.text === 'null');
const absent = (none: NoneKind): Expr => (none === 'null' ? NULL : { k: 'undef' });

/**
 * The function body with each mutable nullable number split into a number and a flag (see the head
 * comment). `fresh` names the flags.
 */
export function splitNullableLocals(body: Stmt[], fresh: (base: string) => string): Stmt[] {
  const splits = new Map<string, Split>();
  forEachStmt(body, (s) => {
    if (s.k === 'decl' && !s.konst && isSplittable(s.ty)) splits.set(s.name, { flag: fresh(`${s.name}IsSet`), base: s.ty.base, none: s.ty.none[0] });
  });
  if (!splits.size) return body;
  return rewriteList(body, splits, fresh);
}

function rewriteList(list: Stmt[], splits: Map<string, Split>, fresh: (base: string) => string): Stmt[] {
  const out: Stmt[] = [];
  const ex = (e: Expr) => rewriteExpr(e, splits);
  for (const s of list) {
    const loc = s.loc;
    if (s.k === 'decl' && splits.has(s.name) && !s.konst) {
      const sp = splits.get(s.name)!;
      out.push(...setBoth(s.name, sp, s.init ? ex(s.init) : absent(sp.none), loc, fresh, true));
      continue;
    }
    if (s.k === 'assign' && s.target.k === 'var' && splits.has(s.target.name) && tyOf(s.target).k === 'opt') {
      out.push(...setBoth(s.target.name, splits.get(s.target.name)!, ex(s.value), loc, fresh, false));
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
        out.push({ ...s, c: ex(s.c), then: rewriteList(s.then, splits, fresh), else: rewriteList(s.else, splits, fresh) });
        break;
      case 'for':
        out.push({ ...s, init: rewriteList(s.init, splits, fresh), cond: s.cond ? ex(s.cond) : null, update: rewriteList(s.update, splits, fresh), body: rewriteList(s.body, splits, fresh) });
        break;
      case 'while':
      case 'do':
        out.push({ ...s, cond: ex(s.cond), body: rewriteList(s.body, splits, fresh) });
        break;
      case 'block':
        out.push({ ...s, body: rewriteList(s.body, splits, fresh) });
        break;
      case 'switch':
        out.push({ ...s, disc: ex(s.disc), cases: s.cases.map((c) => ({ tests: c.tests ? c.tests.map(ex) : null, body: rewriteList(c.body, splits, fresh) })) });
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
function setBoth(name: string, sp: Split, v: Expr, loc: Stmt['loc'], fresh: (base: string) => string, declare: boolean): Stmt[] {
  const num = (value: Expr): Stmt => (declare ? { k: 'decl', name, ty: sp.base, init: value, konst: false, loc } : { k: 'assign', target: { k: 'var', name, ty: sp.base }, value, loc });
  const flag = (value: Expr): Stmt => (declare ? { k: 'decl', name: sp.flag, ty: BOOL, init: value, konst: false, loc, origin: 'nullable.split' } : { k: 'assign', target: { k: 'var', name: sp.flag, ty: BOOL }, value, loc, origin: 'nullable.split' });
  const zero = placeholder(sp.base);
  if (isNothing(v)) return declare ? [num(zero), flag({ k: 'bool', v: false })] : [flag({ k: 'bool', v: false })];
  const t = tyOf(v);
  if (t.k !== 'opt') return [num(v), flag({ k: 'bool', v: true })];
  // an array chosen or absent (`last = c ? p : undefined`): an `if`, so no nullable array is ever held
  if (sp.base.k === 'arr' && v.k === 'cond' && (isNothing(v.a) || isNothing(v.b))) {
    const first = declare ? setBoth(name, sp, absent(sp.none), loc, fresh, true) : [];
    return [...first, { k: 'if', c: v.c, then: setBoth(name, sp, v.a, loc, fresh, false), else: setBoth(name, sp, v.b, loc, fresh, false), loc }];
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
  return mapExpr(e, (x) => {
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
