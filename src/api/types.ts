// The runtime API's types: what grad, valueAndGrad, jvp, vjp and jacobian return, computed from the
// differentiated function's parameters and the `wrt` option, so that TypeScript callers need no cast.
// A gradient has the shape of its argument with only the parts that hold floats (`Tangent` of the
// runtime library: what the generated code's shadows are).
import type { Tangent } from '../runtime/arrays.js';

/** a function the runtime API can be given: its types are read from its signature */
export type AnyFunction = (...args: any[]) => any;

/** the argument positions of a parameter list (`0 | 1` for two parameters; any number for a rest parameter) */
type ParamIndex<P extends readonly unknown[]> = number extends P['length'] ? number : Exclude<Partial<Required<P>>['length'], Required<P>['length']>;

/** a literal position out of `P`'s range (never for a name, an index in range, or a non-literal number) */
type BadIndex<P extends readonly unknown[], I> = I extends number ? (number extends I ? never : I extends ParamIndex<P> ? never : I) : never;

/**
 * The options' type for `F` and the `wrt` value `W` given: a `wrt` that is a literal position out of
 * range, a list holding one, or an empty list is rejected (its type becomes `never`); `wrt` computed at
 * run time (of type number, string or an array of them) is accepted as it is.
 */
export type OptionsFor<F extends AnyFunction, W, O> = O & ([W] extends [readonly []] ? { wrt: never } : [BadIndex<Parameters<F>, W extends readonly unknown[] ? W[number] : W>] extends [never] ? unknown : { wrt: never });

/**
 * The derivative type of the argument `I` selects: by position exactly; by name, any of the parameters'
 * (a name's position is not part of a function's type).
 */
type One<P extends readonly unknown[], I> = I extends number ? (number extends I ? Tangent<P[number]> : Tangent<P[I]>) : Tangent<P[number]>;

/**
 * The gradient of `F` with respect to the `wrt` option `W`: of the first argument when `W` is not given
 * (as the runtime does, unless that argument is a number used only as a size: then pass `wrt`), of the
 * one selected, or a tuple of them, in order, when `W` is a list.
 */
export type Gradient<F extends AnyFunction, W = undefined> = [W] extends [undefined]
  ? Tangent<Parameters<F>[0]>
  : W extends readonly unknown[]
    ? { -readonly [K in keyof W]: One<Parameters<F>, W[K]> }
    : One<Parameters<F>, W>;

/** grad's result: the gradient, or null where a function typed `number | null` returns null */
export type MaybeGradient<F extends AnyFunction, W = undefined> = null extends ReturnType<F> ? Gradient<F, W> | null | (undefined extends ReturnType<F> ? undefined : never) : undefined extends ReturnType<F> ? Gradient<F, W> | undefined : Gradient<F, W>;

/** jvp's tangents: one per independent, in `wrt` order, each shaped like its argument */
export type Tangents<F extends AnyFunction, W = undefined> = [W] extends [undefined]
  ? [Tangent<Parameters<F>[0]>]
  : W extends readonly unknown[]
    ? { -readonly [K in keyof W]: One<Parameters<F>, W[K]> }
    : [One<Parameters<F>, W>];

/** the derivative of `F`'s result (jvp's output tangent, vjp's cotangent) */
export type ResultTangent<F extends AnyFunction> = Tangent<ReturnType<F>>;
