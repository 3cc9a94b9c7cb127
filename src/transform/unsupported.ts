// Operations the transformations do not differentiate yet. They are refused where they are written,
// before any derivative is built: passed through, they would leave an array and its shadow with
// different lengths, or read a shadow that was never made, and the derivative would be wrong.
import type { FuncActivity } from '../analysis/activity.js';
import type { Func, Loc, Ty } from '../ir/types.js';
import { forEachStmt, hasFloat, isRef } from '../ir/util.js';
import { TransformError } from './tangent.js';

/** throws a located TransformError at the first operation of `f` that no mode can differentiate */
export function refuseUnsupportedOps(f: Func, fa: FuncActivity | undefined): void {
  if (fa) refuseVariedNullableRefs(f, fa);
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

/**
 * A nullable array or object whose numbers depend on the independents (`const x = solve(A, b)` with
 * `solve` returning `number[] | null`, `A.find(…)` on rows): it has no shadow, so its derivative would
 * be lost or read from a shadow that does not exist.
 */
function refuseVariedNullableRefs(f: Func, fa: FuncActivity): void {
  const where = new Map<string, { name: string; field: string | null; loc: Loc | undefined }>();
  const note = (name: string, t: Ty, loc: Loc | undefined) => {
    const field = nullableRef(t) ? null : nullableRefField(t);
    if (nullableRef(t) || field) where.set(fa.aliases.rep(name), { name, field, loc });
  };
  for (const p of f.params) note(p.name, p.ty, f.loc);
  forEachStmt(f.body, (s) => {
    if (s.k === 'decl') note(s.name, s.ty, s.loc);
  });
  if (!where.size) return;
  forEachStmt(f.body, (s) => {
    for (const facts of [fa.varied.inOf.get(s), fa.varied.outOf.get(s)])
      for (const [rep, { name, field, loc }] of where)
        if (facts?.has(rep))
          throw new TransformError(
            field
              ? `'${name}' has the optional field '${field}', an array or object that may be absent, and its numbers depend on the independents: tsad does not differentiate through optional arrays and objects yet; ` +
                  'make the field required (an empty array where there is nothing), or pass the array as a parameter of its own'
              : `'${name}' is an array or object that may be null or undefined, and its numbers depend on the independents: tsad does not differentiate through nullable arrays and objects yet; ` +
                  'return an array in every case (an empty one for no result) or throw instead of returning null, and for `find` on rows use `findIndex` and index the array',
            loc ? { loc } : s,
          );
  });
}
