// The Math functions and constants differentiated code may use, by arity, shared by the lowering of
// calls (lower.ts) and of callbacks (callbacks.ts: `xs.map(Math.exp)`).

/** every supported Math function */
export const MATH_FUNCS = new Set([
  'sin', 'cos', 'tan', 'asin', 'acos', 'atan', 'atan2', 'sinh', 'cosh', 'tanh', 'asinh', 'acosh', 'atanh',
  'exp', 'expm1', 'log', 'log1p', 'log2', 'log10', 'sqrt', 'cbrt', 'pow', 'abs', 'sign', 'min', 'max',
  'hypot', 'floor', 'ceil', 'round', 'trunc', 'fround',
]);
/** those taking any number of arguments */
export const MATH_NARY = new Set(['min', 'max', 'hypot']);
/** those taking two */
export const MATH_BINARY = new Set(['atan2', 'pow']);
/** those whose result is an integer */
export const MATH_INTEGRAL = new Set(['floor', 'ceil', 'round', 'trunc', 'sign']);
export const MATH_CONSTS = new Set(['E', 'LN10', 'LN2', 'LOG2E', 'LOG10E', 'PI', 'SQRT1_2', 'SQRT2']);
