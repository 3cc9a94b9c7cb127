// Rest elements in array binding patterns (issue 16): `const [first, ...rest] = xs` and parameters
// `function f([a, ...more]: number[])`. JavaScript collects what the iterator yields after the elements
// before the rest into a fresh array: `xs.slice(k)`, a shallow copy (rows of a matrix are shared, as
// slice shares them), a plain array even from a typed array. It lowers as `slice` does: a fresh array
// built by pushes (its adjoint pops them back into the source), or, from a tuple, a literal of the
// remaining elements (its type is the shorter tuple).
//
// An object pattern's rest (`const { scale, ...rest } = opts`) is a fresh object holding the fields not
// named before it: a literal of reads of those fields, so a number is copied and an array field is shared
// (JavaScript copies own properties shallowly). Its fields are those of TypeScript's type for `rest`.
import ts from 'typescript';
import type { Expr, Loc, Stmt, Ty } from '../ir/types.js';
import { BOOL, INT, elemTy, fieldTy, isRef } from '../ir/util.js';

/** The source forms this module lowers, for coverage accounting (test/fuzz/coverage.ts reads `origin`). */
export const REST_FORMS = [
  'destructure.rest', // `const [a, ...rest] = xs`, `function f([a, ...more]: number[])`
  'destructure.objrest', // `const { a, ...rest } = o`
] as const;

/** What the lowering of a function lends this module. */
export interface RestHost {
  typeAt(n: ts.Node): Ty | null;
  err(n: ts.Node, msg: string, hint?: string): null;
  fresh(base: string): string;
  declareVar(node: ts.Node, name: string, ty: Ty): string;
}

/**
 * The statements that declare `...name` of an array pattern (a fresh array of what `src` holds from
 * index `from` on), or null if refused (reported).
 */
export function restElement(h: RestHost, el: ts.BindingElement, src: Expr, srcTy: Ty, from: number, konst: boolean, loc: Loc): Stmt[] | null {
  if (!ts.isIdentifier(el.name)) return h.err(el, 'a rest element with a pattern is not supported', `bind the rest to a name and destructure that: \`...rest\`, then \`const [b, c] = rest\``);
  const ty = h.typeAt(el.name);
  if (!ty || (ty.k !== 'arr' && ty.k !== 'tuple')) return h.err(el, `cannot type the rest element '${el.name.text}'`, 'annotate the destructured value, e.g. `const [a, ...rest]: number[] = xs`');
  const at = (i: Expr): Expr => ({ k: 'idx', obj: src, index: i, ty: elemTy(srcTy, i) });
  const tag = (s: Stmt): Stmt => ({ ...s, loc, origin: 'destructure.rest' });
  if (ty.k === 'tuple') {
    // the remaining elements of a tuple: their number is its type's
    const elems = ty.elems.map((_, k) => at({ k: 'num', v: from + k }));
    return [tag({ k: 'decl', name: h.declareVar(el, el.name.text, ty), ty, init: { k: 'arrlit', elems, ty }, konst })];
  }
  if (ty.elem.k === 'opt' || (!isRef(ty.elem) && ty.elem.k !== 'num' && ty.elem.k !== 'int')) return h.err(el, `a rest element of type '${el.name.text}' is not supported`, 'index the array explicitly');
  const fresh: Ty = { k: 'arr', elem: ty.elem.k === 'int' ? { k: 'num' } : ty.elem, typed: false, ro: false };
  const name = h.declareVar(el, el.name.text, fresh);
  const out: Expr = { k: 'var', name, ty: fresh };
  const k = h.fresh('k');
  const kv: Expr = { k: 'var', name: k, ty: INT };
  const loop: Stmt = {
    k: 'for',
    init: [{ k: 'decl', name: k, ty: INT, init: { k: 'num', v: from }, konst: false }],
    cond: { k: 'bin', op: '<', a: kv, b: { k: 'len', obj: src }, ty: BOOL },
    update: [{ k: 'assign', target: kv as Extract<Expr, { k: 'var' }>, value: { k: 'bin', op: '+', a: kv, b: { k: 'num', v: 1 }, ty: INT }, op: '+', inc: true }],
    body: [{ k: 'expr', e: { k: 'intr', fn: 'push', args: [out, at(kv)], ty: { k: 'void' } } }],
  };
  return [tag({ k: 'decl', name, ty: fresh, init: { k: 'arrlit', elems: [], ty: fresh }, konst }), tag(loop)];
}

/**
 * The declaration of `...name` of an object pattern (a fresh object of the fields of `src` the pattern
 * does not name), or null if refused (reported).
 */
export function objectRest(h: RestHost, el: ts.BindingElement, src: Expr, srcTy: Ty, konst: boolean, loc: Loc): Stmt[] | null {
  if (!ts.isIdentifier(el.name)) return h.err(el, 'a rest element with a pattern is not supported', 'bind the rest to a name: `...rest`');
  const ty = h.typeAt(el.name);
  if (!ty || ty.k !== 'obj') return h.err(el, `cannot type the rest element '${el.name.text}'`, 'read the fields explicitly');
  // an optional field is absent from the rest when absent from the source: a literal would always have it (`'k' in rest`)
  const optional = ty.fields.find((f) => f.ty.k === 'opt');
  if (optional) return h.err(el, `the rest element '${el.name.text}' would hold the optional field '${optional.name}'`, `read the fields explicitly: \`const ${el.name.text} = { ${optional.name}: o.${optional.name}, … }\``);
  const fields = ty.fields.map((f) => ({ name: f.name, value: { k: 'field', obj: src, name: f.name, ty: fieldTy(srcTy, f.name) } as Expr }));
  return [{ k: 'decl', name: h.declareVar(el, el.name.text, ty), ty, init: { k: 'objlit', fields, ty }, konst, loc, origin: 'destructure.objrest' }];
}
