// Typed arrays other than Float64Array (issue 16): `Float32Array` and the integer typed arrays
// (`Int8Array`, `Uint8Array`, `Uint8ClampedArray`, `Int16Array`, `Uint16Array`, `Int32Array`,
// `Uint32Array`), recognised by the name of the type's symbol as TypeScript's own lib names them
// (`Int32Array`, generic `Int32Array<ArrayBufferLike>` in TS 5.7+), so they need nothing of tsad's lib.
//
// What each carries decides how it is differentiated:
// - a Float32Array carries floats: it is active like a Float64Array, its shadow (tangent, adjoint) is a
//   Float64Array, and a store rounds the primal value to float32, whose derivative is that of
//   `Math.fround`: the identity (the rule table's choice; 1 almost everywhere).
// - an integer typed array carries integers: its elements read as `int` (usable as indices, never
//   active), and a float stored into one is truncated or wrapped by JavaScript itself: passive, no
//   derivative.
// The primal code keeps the constructor the source wrote, so every stored value is converted exactly as
// the original converts it.
import ts from 'typescript';
import type { Expr, Ty, TypedCtor } from '../ir/types.js';
import { INT, NUM, isRef, tyOf } from '../ir/util.js';

/** The source forms this module lowers, for coverage accounting (test/fuzz/coverage.ts). */
export const TYPED_FORMS = [
  'typed.f32', // `new Float32Array(n)`, `new Float32Array(a)`, `Float32Array.from(a)` (floats rounded on store)
  'typed.int', // `new Int32Array(n)`, `.fill(v)`, `Uint8Array.from(a)`… (integer elements, passive)
] as const;

type ArrTy = Extract<Ty, { k: 'arr' }>;

const INTEGER_CTORS: ReadonlySet<string> = new Set(['Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array']);

/** What the lowering of a function lends this module. */
export interface TypedArrayHost {
  typeAt(n: ts.Node): Ty | null;
  expr(e: ts.Expression): Expr | null;
  err(n: ts.Node, msg: string, hint?: string): null;
}

/** The IR type of a typed array named `name` (a type's symbol name), or null if it names none. */
export function typedArrayTy(name: string | undefined): ArrTy | null {
  if (name === 'Float64Array') return { k: 'arr', elem: NUM, typed: true, ro: false };
  if (name === 'Float32Array') return { k: 'arr', elem: NUM, typed: true, ro: false, ctor: 'Float32Array' };
  if (name && INTEGER_CTORS.has(name)) return { k: 'arr', elem: INT, typed: true, ro: false, ctor: name as TypedCtor };
  return null;
}

/** The constructor generated code names for a typed array type (its derivative's: Float64Array). */
export function typedCtorName(t: ArrTy): string {
  return t.ctor ?? 'Float64Array';
}

/** Whether `name` is a typed array constructor tsad lowers. */
export function isTypedCtor(name: string): boolean {
  return typedArrayTy(name) !== null;
}

/** The type a `new X(…)` / `X.from(…)` expression has, checked against the constructor named: the
 * checker's type is the authority (a local class named Int32Array is not a typed array). */
function ctorTy(h: TypedArrayHost, e: ts.Expression, name: string): ArrTy | null {
  const t = h.typeAt(e);
  const want = typedArrayTy(name);
  if (!t || t.k !== 'arr' || !t.typed || !want || t.ctor !== want.ctor) return null;
  return want;
}

/**
 * `new X(n)` (zero-filled), `new X(arrayLike)` (a converted copy), `X.from(arrayLike)`. The copy is a
 * fresh array: its shadow is fresh too, and the adjoint flows back into the copied array's (a copy into
 * an integer array has none: the values are truncated, passive).
 */
export function newTypedArray(h: TypedArrayHost, e: ts.NewExpression | ts.CallExpression, name: string, viaFrom: boolean): Expr | null {
  const shown = viaFrom ? `${name}.from` : `new ${name}`;
  const ty = ctorTy(h, e, name);
  if (!ty) return h.err(e, `cannot type \`${shown}(…)\``, `write \`new ${name}(n)\` or \`${name}.from(array)\``);
  const args = e.arguments ?? [];
  if (args.length !== 1 || ts.isSpreadElement(args[0])) return h.err(e, `\`${shown}\` needs exactly one argument here`, viaFrom ? 'copy an array: `X.from(a)`; map it with a loop afterwards' : 'a length, or an array to copy');
  const a = h.expr(args[0]);
  if (!a) return null;
  const at = tyOf(a);
  if (at.k === 'arr' || at.k === 'tuple') {
    const elems = at.k === 'arr' ? [at.elem] : at.elems;
    if (elems.some((x) => isRef(x) || (x.k !== 'num' && x.k !== 'int'))) return h.err(args[0], `\`${shown}\` copies arrays of numbers only`, 'copy each row into its own typed array');
    return { k: 'intr', fn: 'copy', args: [a], ty };
  }
  if (viaFrom) return h.err(args[0], `\`${name}.from\` needs an array here`, `allocate with \`new ${name}(n)\``);
  if (at.k !== 'num' && at.k !== 'int') return h.err(args[0], `\`new ${name}\` needs a length or an array of numbers`);
  return { k: 'alloc', len: a, fill: null, ty };
}

/** `new X(n).fill(v)`: one allocation filled with `v` (converted as the typed array converts it). */
export function newTypedArrayFill(h: TypedArrayHost, n: ts.NewExpression, call: ts.CallExpression, name: string): Expr | null {
  const ty = ctorTy(h, n, name);
  if (!ty) return h.err(n, `cannot type \`new ${name}(…)\``);
  if (n.arguments?.length !== 1 || call.arguments.length !== 1) return h.err(call, `only \`new ${name}(n).fill(value)\` is supported`, 'fill a range with a loop');
  const len = h.expr(n.arguments[0]);
  const fill = h.expr(call.arguments[0]);
  if (!len || !fill) return null;
  const lt = tyOf(len), ft = tyOf(fill);
  if ((lt.k !== 'num' && lt.k !== 'int') || (ft.k !== 'num' && ft.k !== 'int')) return h.err(call, `\`new ${name}(n).fill(v)\` takes a length and a number`);
  return { k: 'alloc', len, fill, ty };
}
