// Type-level test of the runtime API (checked by test/runtime-types.test.ts with tsc --noEmit --strict):
// results are typed from the function's parameters and `wrt`; wrong uses are rejected (each
// `@ts-expect-error` line must be an error, or the check fails). Never run, only type-checked.
import { grad, jacobian, jvp, valueAndGrad, vjp, type RuntimeOptions } from '../../src/index.js';

/** true only when A and B are the same type (not merely assignable) */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function expectType<T>(_: T): void {}
function same<A, B>(_: Equal<A, B>): void {}

declare const f: (x: number[], y: number) => number;
declare const h: (x: number, y: number) => number;
declare const m: (A: number[][], v: Float64Array, flag: boolean) => number;
interface Particle { pos: number[]; mass: number; kind: 'a' | 'b' }
declare const energy: (p: Particle, k: number) => number;
declare const p: (v: number[]) => number[];
declare const pair: (x: number, y: number[]) => [number, number];
declare const withDefault: (x: number, c?: number) => number;

// grad: the first argument by default, the one selected, or a tuple for a list
const g0 = grad(f)([1, 2], 3);
same<typeof g0, number[]>(true);
const g1 = grad(f, { wrt: 1 })([1, 2], 3);
same<typeof g1, number>(true);
const g2 = grad(f, { wrt: [0, 1] })([1, 2], 3);
same<typeof g2, [number[], number]>(true);
const g3 = grad(h, { wrt: [1] })(1, 2);
same<typeof g3, [number]>(true);
const g4 = grad(m, { wrt: [1, 0] })([[1]], new Float64Array(1), true);
same<typeof g4, [Float64Array, number[][]]>(true);
// an object's gradient keeps only the fields that hold floats
const g5 = grad(energy)({ pos: [1], mass: 2, kind: 'a' }, 1);
same<typeof g5, { pos: number[]; mass: number }>(true);
// by name: a name's position is not in the function's type, so any parameter's derivative
const g6 = grad(f, { wrt: 'y' })([1, 2], 3);
same<typeof g6, number | number[]>(true);
const g7 = grad(withDefault, { wrt: 1 })(1);
same<typeof g7, number>(true);
// options without wrt keep the default
const g8 = grad(f, { check: false })([1], 2);
same<typeof g8, number[]>(true);

// wrt computed at run time: accepted, typed as any of the possible results
declare const i: number;
const g9 = grad(f, { wrt: i })([1], 2);
same<typeof g9, number | number[]>(true);
declare const dynamic: RuntimeOptions;
const g10 = grad(f, dynamic)([1], 2);
same<typeof g10, number | number[] | (number | number[])[]>(true);

// valueAndGrad
const [v0, d0] = valueAndGrad(f, { wrt: [1, 0] })([1, 2], 3);
expectType<number>(v0);
same<typeof d0, [number, number[]]>(true);

// jvp: tangents typed per independent, the output tangent like the result
const [y1, t1] = jvp(p, [[1, 2]], [[1, 0]]);
same<typeof y1, number[]>(true);
same<typeof t1, number[]>(true);
const [y2, t2] = jvp(pair, [1, [2]], [1, [0]], { wrt: [0, 1] });
same<typeof y2, [number, number]>(true);
same<typeof t2, [number, number]>(true);

// vjp: the cotangent typed like the result, the gradient as grad's
const [y3, back] = vjp(pair, [1, [2]], { wrt: [1, 0] });
same<typeof y3, [number, number]>(true);
const b3 = back([1, 0]);
same<typeof b3, [number[], number]>(true);

// jacobian: rows of numbers
const J = jacobian(p)([1, 2]);
same<typeof J, number[][]>(true);

// ---- wrong uses, each rejected

// @ts-expect-error grad needs a function that returns a number (use jacobian or vjp)
grad(p);
// @ts-expect-error valueAndGrad likewise
valueAndGrad(pair);
// @ts-expect-error wrt position out of range (f has two parameters)
grad(f, { wrt: 2 });
// @ts-expect-error wrt list with a position out of range
grad(f, { wrt: [0, 5] });
// @ts-expect-error an empty wrt list
grad(f, { wrt: [] });
// @ts-expect-error arguments are checked against f's parameters
grad(f)(1, 2);
// @ts-expect-error the gradient of x is an array, not a number
const bad1: number = grad(f)([1], 2);
// @ts-expect-error jvp's tangent has the shape of the independent
jvp(p, [[1, 2]], [1]);
// @ts-expect-error one tangent per independent
jvp(pair, [1, [2]], [1], { wrt: [0, 1] });
// @ts-expect-error vjp's cotangent has the shape of the result
vjp(p, [[1, 2]])[1](1);
// @ts-expect-error out of range for jvp, vjp and jacobian too
jacobian(p, { wrt: 1 });
// @ts-expect-error (vjp)
vjp(p, [[1]], { wrt: [0, 1] });
// @ts-expect-error jacobian's arguments are f's
jacobian(p)(1);

export { bad1 };
