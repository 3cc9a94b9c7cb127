// Operations the transformations do not differentiate yet. They are refused where they are written,
// before any derivative is built: passed through, they would leave an array and its shadow with
// different lengths, or read a shadow that was never made, and the derivative would be wrong.
import type { FuncActivity } from '../analysis/activity.js';
import { callSites } from '../analysis/activity.js';
import type { Expr, Func, Loc, Ty } from '../ir/types.js';
import { forEachExpr, forEachStmt, hasFloat, isRef, rootVar, stmtExprs } from '../ir/util.js';
import { perFunction } from '../ir/per-function.js';
import { oneKind } from './normalize.js';
import { TransformError } from './tangent.js';

/** throws a located TransformError at the first operation of `f` that no mode can differentiate */
export function refuseUnsupportedOps(f: Func, fa: FuncActivity | undefined, callee: (name: string) => Func | undefined): void {
  if (!fa) return;
  refuseVariedNullableRefs(f, fa);
  refuseVariedArgumentsToNullableRefs(f, fa, callee);
  refuseUnnamedReferences(f);
}

/**
 * Normalization names an array chosen by a test or made where it is copied (normalize.ts); inside a
 * branch taken only sometimes it cannot, and there such a value would carry no derivative.
 */
function refuseUnnamedReferences(f: Func): void {
  const found = firstUnnamedReference(f);
  if (found) throw found;
}

/** the refusal of refuseUnnamedReferences at the first such value of `f`, or null (kept: it depends on `f` alone) */
const firstUnnamedReference = perFunction((f): TransformError | null => {
  let found: TransformError | null = null;
  forEachStmt(f.body, (s) => {
    if (found) return;
    const top = s.k === 'decl' ? s.init : s.k === 'assign' && s.target.k === 'var' ? s.value : null;
    for (const e of stmtExprs(s))
      forEachExpr(e, (x) => {
        if (found) return;
        const chosen = x.k === 'cond' && isRef(x.ty) && x !== top && !isChoiceOf(top, x);
        const made = (x.k === 'sub' && !rootVar(x.obj)) || (x.k === 'intr' && (x.fn === 'copy' || x.fn === 'snapshot') && x.args[0] && !rootVar(x.args[0]) && x.args[0].k !== 'arrlit');
        if (chosen || made)
          found = new TransformError(
            chosen && !oneKind(x)
              ? 'this test chooses between a typed array and a plain array: tsad follows derivatives through arrays of one kind only; convert one of them (`Float64Array.from(a)`, `Array.from(t)`)'
              : chosen
              ? 'tsad does not follow derivatives through an array or object chosen by a test where it is used: name it first (`const a = c ? p : q;`, then `a[i]`)'
              : 'tsad does not follow derivatives through a copy or view of an array made where it stands: name the array first (`const t = …;`, then `t.slice()`)',
            x.loc ? x : s,
          );
      });
  });
  return found;
});

/** is `x` a branch, at any depth, of the conditional `top` (`c ? (d ? a : b) : e` names a choice of choices)? */
function isChoiceOf(top: Expr | null, x: Expr): boolean {
  if (!top || top.k !== 'cond') return false;
  return top.a === x || top.b === x || isChoiceOf(top.a, x) || isChoiceOf(top.b, x);
}

/** an array or object of numbers that may be null or undefined: such values carry no derivative (yet) */
const nullableRef = (t: Ty) => t.k === 'opt' && isRef(t.base) && hasFloat(t.base);

/** the first field, at any depth of `t`, that is such a nullable array or object (`w?: number[]`), as a path */
function nullableRefField(t: Ty, seen = new Set<Ty>()): string | null {
  if (seen.has(t)) return null;
  seen.add(t);
  switch (t.k) {
    case 'obj':
      for (const f of t.fields) {
        if (nullableRef(f.ty) || (f.optional && isRef(f.ty) && hasFloat(f.ty))) return f.name;
        const inner = nullableRefField(f.ty, seen);
        if (inner) return `${f.name}.${inner}`;
      }
      return null;
    case 'arr':
      return nullableRefField(t.elem, seen);
    case 'tuple':
      for (const e of t.elems) {
        const inner = nullableRefField(e, seen);
        if (inner) return inner;
      }
      return null;
    default:
      return null;
  }
}

interface NullableRefName {
  name: string;
  /** the field that may be absent, or null: the variable itself may be */
  field: string | null;
  loc: Loc | undefined;
}

/** the parameters and locals of `f` that are nullable arrays or objects or hold one in a field, in order (kept per function object) */
const nullableRefNames = perFunction((f) => {
  const out: NullableRefName[] = [];
  const note = (name: string, t: Ty, loc: Loc | undefined) => {
    const field = nullableRef(t) ? null : nullableRefField(t);
    if (nullableRef(t) || field) out.push({ name, field, loc });
  };
  for (const p of f.params) note(p.name, p.ty, f.loc);
  forEachStmt(f.body, (s) => {
    if (s.k === 'decl') note(s.name, s.ty, s.loc);
  });
  return out;
});

/**
 * A nullable array or object whose numbers depend on the independents (`const x = solve(A, b)` with
 * `solve` returning `number[] | null`, `A.find(…)` on rows): it has no shadow, so its derivative would
 * be lost or read from a shadow that does not exist.
 */
function refuseVariedNullableRefs(f: Func, fa: FuncActivity): void {
  const where = new Map<string, NullableRefName>();
  for (const n of nullableRefNames(f)) where.set(fa.aliases.rep(n.name), n);
  if (!where.size) return;
  forEachStmt(f.body, (s) => {
    for (const facts of [fa.varied.inOf.get(s), fa.varied.outOf.get(s)])
      for (const [rep, { name, field, loc }] of where)
        if (facts?.has(rep))
          throw new TransformError(
            field
              ? `'${name}' has the optional field '${field}', an array or object that may be absent, and its numbers depend on the independents: tsad does not differentiate through optional arrays and objects yet; ` +
                  'make the field required (an empty array where there is nothing), or pass the array as a parameter of its own'
              : `'${name}' is an array or object that may be null or undefined, and its numbers depend on the independents: tsad follows a plain array that may be null (a helper's \`number[] | null\` result, a \`let\` set in a loop), not a nullable object, typed array or row found by \`find\`; ` +
                  'return an object in every case (a flag field for no result) or throw instead of returning null, and for `find` on rows use `findIndex` and index the array',
            loc ? { loc } : s,
          );
  });
}

/**
 * A helper's parameter that may be absent (`x?: number[]`, `x: number[] | null`) carries no
 * derivative; a call passing numbers that depend on the independents there would lose theirs.
 */
function refuseVariedArgumentsToNullableRefs(f: Func, fa: FuncActivity, callee: (name: string) => Func | undefined): void {
  for (const { s, calls } of callSites(f)) {
    const varied = fa.varied.inOf.get(s);
    if (!varied) continue;
    for (const c of calls) {
      const g = callee(c.fn);
      if (!g) continue;
      c.args.forEach((a, j) => {
        const p = g.params[j];
        const root = rootVar(a);
        if (!p || !root || !varied.has(fa.aliases.rep(root))) return;
        const field = nullableRef(p.ty) ? null : nullableRefField(p.ty);
        if (!nullableRef(p.ty) && !field) return;
        const what = field ? `'${p.name}', whose field '${field}' may be absent,` : `'${p.name}' as an array or object that may be absent,`;
        throw new TransformError(
          `'${g.name}' takes ${what} and this call passes numbers there that depend on the independents: tsad does not differentiate through nullable arrays and objects yet; ` +
            `make the parameter${field ? "'s field" : ''} required (pass an empty array where there is nothing), or call a helper without it where it is left out`,
          c.loc ? c : s,
        );
      });
    }
  }
}
