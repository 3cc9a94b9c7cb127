/**
 * The tsad test corpus: one entry per head function (a few heads appear more
 * than once with different passive flags). Ranges keep every function inside
 * its domain and, where feasible, away from kinks.
 */
import type { ArgSpec, CorpusCase } from './types.js';

const num = (lo: number, hi: number): ArgSpec => ({ kind: 'num', lo, hi });
const int = (value: number): ArgSpec => ({ kind: 'int', value });
const bool = (value: boolean): ArgSpec => ({ kind: 'bool', value });
const str = (value: string): ArgSpec => ({ kind: 'str', value });
const vec = (n: number, lo: number, hi: number): ArgSpec => ({ kind: 'vec', n, lo, hi });
const f64 = (n: number, lo: number, hi: number): ArgSpec => ({ kind: 'vec', n, lo, hi, typed: true });
const mat = (rows: number, cols: number, lo: number, hi: number): ArgSpec => ({ kind: 'mat', rows, cols, lo, hi });
const tuple = (n: number, lo: number, hi: number): ArgSpec => ({ kind: 'tuple', n, lo, hi });
const list = (n: number, of: ArgSpec): ArgSpec => ({ kind: 'list', n, of });
const obj = (fields: Record<string, ArgSpec>): ArgSpec => ({ kind: 'obj', fields });

export const corpus: CorpusCase[] = [
  // ---------------------------------------------------------------- scalar.ts
  { name: 'scalar/square', file: 'scalar.ts', head: 'square', args: [num(-2, 2)], tags: ['scalar', 'nested'] },
  { name: 'scalar/cubic_poly', file: 'scalar.ts', head: 'cubicPoly', args: [num(-2, 2)], tags: ['scalar', 'nested'] },
  { name: 'scalar/rational', file: 'scalar.ts', head: 'rational', args: [num(-2, 2), num(-2, 2)], tags: ['scalar', 'division', 'nested'] },
  { name: 'scalar/rosenbrock', file: 'scalar.ts', head: 'rosenbrock', args: [num(-1.5, 1.5), num(-0.5, 2)], tags: ['scalar', 'objective', 'nested'] },
  { name: 'scalar/bilinear', file: 'scalar.ts', head: 'bilinear', args: [num(-2, 2), num(-2, 2), num(-2, 2)], tags: ['scalar', 'arrow'] },
  { name: 'scalar/compound_ops', file: 'scalar.ts', head: 'compoundOps', args: [num(-2, 2), num(-2, 2)], tags: ['scalar', 'compound-assign', 'pow-assign', 'nested'] },
  { name: 'scalar/negations', file: 'scalar.ts', head: 'negations', args: [num(-2, 2), num(-2, 2)], tags: ['scalar', 'unary-minus'] },
  { name: 'scalar/power_operator', file: 'scalar.ts', head: 'powerOperator', args: [num(0.3, 2.5), num(-1.5, 1.5)], tags: ['scalar', 'pow-operator', 'nested'] },
  { name: 'scalar/smoothstep_frac', file: 'scalar.ts', head: 'smoothstepFrac', args: [num(2.05, 2.95)], tags: ['scalar', 'modulo'] },
  { name: 'scalar/truncated_scale', file: 'scalar.ts', head: 'truncatedScale', args: [num(-2, 2), int(7)], tags: ['scalar', 'bitor-zero', 'passive-int'] },
  { name: 'scalar/lennard_jones', file: 'scalar.ts', head: 'lennardJones', args: [num(0.9, 2.5), num(0.5, 1.5), num(0.8, 1.2)], tags: ['scalar', 'physics'] },
  { name: 'scalar/reuse_temporaries', file: 'scalar.ts', head: 'reuseTemporaries', args: [num(-2, 2), num(-2, 2)], tags: ['scalar', 'arrow', 'reassign', 'nested'] },

  // ------------------------------------------------------------ intrinsics.ts
  { name: 'intrinsics/trig', file: 'intrinsics.ts', head: 'trig', args: [num(-1.5, 1.5), num(-2, 2)], tags: ['intrinsic:sin', 'intrinsic:cos', 'intrinsic:tan', 'nested'] },
  { name: 'intrinsics/inverse_trig', file: 'intrinsics.ts', head: 'inverseTrig', args: [num(-0.9, 0.9), num(-0.9, 0.9)], tags: ['intrinsic:asin', 'intrinsic:acos', 'intrinsic:atan'] },
  { name: 'intrinsics/polar_angle', file: 'intrinsics.ts', head: 'polarAngle', args: [num(0.3, 2), num(-2, 2)], tags: ['intrinsic:atan2', 'intrinsic:hypot'] },
  { name: 'intrinsics/hyperbolic', file: 'intrinsics.ts', head: 'hyperbolic', args: [num(-2, 2)], tags: ['intrinsic:sinh', 'intrinsic:cosh', 'intrinsic:tanh', 'nested'] },
  { name: 'intrinsics/inverse_hyperbolic', file: 'intrinsics.ts', head: 'inverseHyperbolic', args: [num(-2, 2), num(1.2, 3), num(-0.8, 0.8)], tags: ['intrinsic:asinh', 'intrinsic:acosh', 'intrinsic:atanh'] },
  { name: 'intrinsics/exp_family', file: 'intrinsics.ts', head: 'expFamily', args: [num(-1, 1), num(-1, 1)], tags: ['intrinsic:exp', 'intrinsic:expm1', 'intrinsic:pow', 'math-e', 'nested'] },
  { name: 'intrinsics/log_family', file: 'intrinsics.ts', head: 'logFamily', args: [num(0.5, 3), num(0.2, 2)], tags: ['intrinsic:log', 'intrinsic:log1p', 'intrinsic:log2', 'intrinsic:log10', 'nested'] },
  { name: 'intrinsics/roots', file: 'intrinsics.ts', head: 'roots', args: [num(0.2, 3), num(0.3, 3)], tags: ['intrinsic:sqrt', 'intrinsic:cbrt'] },
  { name: 'intrinsics/pow_forms', file: 'intrinsics.ts', head: 'powForms', args: [num(0.3, 2), num(0.3, 2)], tags: ['intrinsic:pow'] },
  { name: 'intrinsics/abs_sign', file: 'intrinsics.ts', head: 'absSign', args: [num(-2, 2), num(-2, 2)], tags: ['intrinsic:abs', 'intrinsic:sign', 'kink'] },
  { name: 'intrinsics/min_max_binary', file: 'intrinsics.ts', head: 'minMaxBinary', args: [num(-2, 2), num(-2, 2)], tags: ['intrinsic:min', 'intrinsic:max', 'kink'] },
  { name: 'intrinsics/min_max_nary', file: 'intrinsics.ts', head: 'minMaxNary', args: [num(-2, 2), num(-2, 2), num(-2, 2), num(-2, 2)], tags: ['intrinsic:min', 'intrinsic:max', 'intrinsic:hypot', 'nary'] },
  { name: 'intrinsics/spread_max_min_hypot', file: 'intrinsics.ts', head: 'spreadMaxMinHypot', args: [vec(5, -2, 2)], tags: ['intrinsic:min', 'intrinsic:max', 'intrinsic:hypot', 'spread'] },
  { name: 'intrinsics/rounding_family', file: 'intrinsics.ts', head: 'roundingFamily', args: [num(0.1, 2.9), num(-1, 1)], tags: ['intrinsic:floor', 'intrinsic:ceil', 'intrinsic:round', 'intrinsic:trunc', 'piecewise-constant'] },
  { name: 'intrinsics/fractional_part', file: 'intrinsics.ts', head: 'fractionalPart', args: [num(-3, 3)], tags: ['intrinsic:floor', 'intrinsic:sin'] },
  { name: 'intrinsics/quantized_weight', file: 'intrinsics.ts', head: 'quantizedWeight', args: [num(-2, 2), int(2)], tags: ['intrinsic:fround', 'passive-int'] },
  { name: 'intrinsics/gaussian_pdf', file: 'intrinsics.ts', head: 'gaussianPdf', args: [num(-2, 2), num(-1, 1), num(0.5, 2)], tags: ['intrinsic:exp', 'intrinsic:sqrt', 'math-pi', 'nested'] },
  { name: 'intrinsics/sinc_squared', file: 'intrinsics.ts', head: 'sincSquared', args: [num(0.1, 2.5)], tags: ['intrinsic:sin', 'math-pi', 'arrow'] },
  { name: 'intrinsics/softplus', file: 'intrinsics.ts', head: 'softplus', args: [num(-3, 3)], tags: ['intrinsic:log1p', 'intrinsic:exp', 'intrinsic:abs', 'intrinsic:max'] },

  // ----------------------------------------------------------------- loops.ts
  { name: 'loops/sum_squares', file: 'loops.ts', head: 'sumSquares', args: [vec(6, -2, 2)], tags: ['loop', 'array', 'nested'] },
  { name: 'loops/horner', file: 'loops.ts', head: 'horner', args: [vec(5, -1, 1), num(-1.5, 1.5)], tags: ['loop', 'reverse-loop', 'horner', 'nested'] },
  { name: 'loops/dot_product', file: 'loops.ts', head: 'dotProduct', args: [vec(5, -2, 2), vec(5, -2, 2)], tags: ['loop', 'prefix-increment', 'nested'] },
  { name: 'loops/running_max_sum', file: 'loops.ts', head: 'runningMaxSum', args: [vec(7, -2, 2)], tags: ['loop', 'branch-active', 'running-max'] },
  { name: 'loops/halving_log', file: 'loops.ts', head: 'halvingLog', args: [num(0.3, 20)], tags: ['while', 'data-dependent-trip', 'param-reassign'] },
  { name: 'loops/newton_sqrt', file: 'loops.ts', head: 'newtonSqrt', args: [num(0.5, 10)], tags: ['do-while', 'fixed-point', 'nested'] },
  { name: 'loops/prefix_until', file: 'loops.ts', head: 'prefixUntil', args: [vec(6, 0, 1.5), num(1, 4)], tags: ['loop', 'break', 'branch-active'] },
  { name: 'loops/sum_positive', file: 'loops.ts', head: 'sumPositive', args: [vec(7, -1, 2)], tags: ['loop', 'continue', 'branch-active'] },
  { name: 'loops/product_for_of', file: 'loops.ts', head: 'productForOf', args: [vec(5, -1, 1)], tags: ['for-of', 'readonly-array', 'nested'] },
  { name: 'loops/pairwise_energy', file: 'loops.ts', head: 'pairwiseEnergy', args: [mat(4, 3, -1, 1)], tags: ['nested-loop', 'matrix', 'intrinsic:sqrt'] },
  { name: 'loops/row_prefix_sums', file: 'loops.ts', head: 'rowPrefixSums', args: [mat(3, 4, -0.5, 2)], tags: ['nested-loop', 'labelled', 'continue'] },
  { name: 'loops/first_large_product', file: 'loops.ts', head: 'firstLargeProduct', args: [vec(4, -1, 2), vec(4, -1, 2), num(0.5, 2)], tags: ['nested-loop', 'labelled', 'break'] },
  { name: 'loops/first_crossing', file: 'loops.ts', head: 'firstCrossing', args: [vec(6, -0.5, 1.5), num(1, 3)], tags: ['loop', 'early-return'] },
  { name: 'loops/geometric_series', file: 'loops.ts', head: 'geometricSeries', args: [num(-0.9, 0.9), int(8)], tags: ['loop', 'passive-int', 'nested'] },
  { name: 'loops/countdown_while', file: 'loops.ts', head: 'countdownWhile', args: [num(-3, 3), int(6)], tags: ['while', 'decrement', 'intrinsic:sin', 'nested'] },
  { name: 'loops/exp_taylor', file: 'loops.ts', head: 'expTaylor', args: [num(-2, 2)], tags: ['while', 'data-dependent-trip', 'arrow', 'intrinsic:abs'] },

  // --------------------------------------------------------------- control.ts
  { name: 'control/huber', file: 'control.ts', head: 'huber', args: [num(-3, 3), num(0.5, 1.5)], tags: ['if-else', 'branch-active', 'intrinsic:abs'] },
  { name: 'control/piecewise_tax', file: 'control.ts', head: 'piecewiseTax', args: [num(5, 80)], tags: ['if', 'branch-active', 'param-reassign', 'piecewise'] },
  { name: 'control/soft_clip_tanh', file: 'control.ts', head: 'softClip', args: [num(-3, 3), bool(true)], tags: ['bool-flag', 'early-return', 'intrinsic:tanh'] },
  { name: 'control/soft_clip_alg', file: 'control.ts', head: 'softClip', args: [num(-3, 3), bool(false)], tags: ['bool-flag', 'intrinsic:sqrt'] },
  { name: 'control/ternary_chain', file: 'control.ts', head: 'ternaryChain', args: [num(-2, 2), num(-2, 2)], tags: ['ternary', 'branch-active', 'arrow'] },
  { name: 'control/logical_gate', file: 'control.ts', head: 'logicalGate', args: [num(-2, 2), num(-1, 1.5)], tags: ['logical-and', 'logical-or', 'not', 'early-return'] },
  { name: 'control/safe_log_sum', file: 'control.ts', head: 'safeLogSum', args: [vec(6, -1, 3)], tags: ['isFinite', 'infinity', 'continue', 'ternary'] },
  { name: 'control/guarded_ratio', file: 'control.ts', head: 'guardedRatio', args: [num(-2, 2), num(0.5, 2)], tags: ['throw', 'isNaN', 'epsilon'] },
  { name: 'control/running_min_inf', file: 'control.ts', head: 'runningMinInf', args: [vec(6, -1, 2)], tags: ['infinity', 'loop', 'branch-active'] },
  { name: 'control/nan_init_max', file: 'control.ts', head: 'nanInitMax', args: [vec(5, -2, 2)], tags: ['nan', 'isNaN', 'for-of', 'logical-or'] },
  { name: 'control/relu_layer', file: 'control.ts', head: 'reluLayer', args: [num(-2, 2), num(-1, 1), num(-1, 1), num(-1, 1), num(-1, 1)], tags: ['ternary', 'branch-active', 'kink'] },
  { name: 'control/bouncing_ball', file: 'control.ts', head: 'bouncingBall', args: [num(0.5, 3), num(0.5, 0.9)], tags: ['while', 'data-dependent-trip', 'logical-and'] },
  { name: 'control/clamp_early', file: 'control.ts', head: 'clampEarly', args: [num(-3, 3), num(-1.5, -0.5), num(0.5, 1.5)], tags: ['early-return', 'throw', 'branch-active'] },

  // ---------------------------------------------------------------- arrays.ts
  { name: 'arrays/softmax', file: 'arrays.ts', head: 'softmax', args: [vec(5, -2, 2)], tags: ['return-array', 'array-fill', 'spread', 'intrinsic:max', 'intrinsic:exp'] },
  { name: 'arrays/log_sum_exp', file: 'arrays.ts', head: 'logSumExp', args: [vec(6, -3, 3)], tags: ['for-of', 'spread', 'intrinsic:max', 'intrinsic:log'] },
  { name: 'arrays/l2_norm', file: 'arrays.ts', head: 'l2Norm', args: [vec(5, -2, 2)], tags: ['spread', 'intrinsic:hypot', 'arrow'] },
  { name: 'arrays/mat_vec', file: 'arrays.ts', head: 'matVec', args: [mat(3, 4, -1, 1), vec(4, -1, 1)], tags: ['return-array', 'push', 'row-alias', 'nested-loop', 'nested'] },
  { name: 'arrays/mat_vec_into', file: 'arrays.ts', head: 'matVecInto', args: [mat(3, 3, -1, 1), vec(3, -1, 1), vec(3, 0, 0)], wrt: ['m', 'v'], tags: ['out-param', 'void', 'nested-loop'] },
  { name: 'arrays/quad_form', file: 'arrays.ts', head: 'quadForm', args: [mat(4, 4, -1, 1), vec(4, -1, 1)], tags: ['row-alias', 'nested-loop', 'nested'] },
  { name: 'arrays/shift_double', file: 'arrays.ts', head: 'shiftDouble', args: [vec(5, -1, 1)], tags: ['alias', 'in-place', 'loop'] },
  { name: 'arrays/prefix_sums', file: 'arrays.ts', head: 'prefixSums', args: [vec(6, -2, 2)], tags: ['return-array', 'array-fill', 'nested'] },
  { name: 'arrays/position_weighted', file: 'arrays.ts', head: 'positionWeighted', args: [vec(5, -2, 2)], tags: ['array-from', 'loop'] },
  { name: 'arrays/convolve3', file: 'arrays.ts', head: 'convolve3', args: [vec(7, -1, 1), num(0.1, 0.4)], tags: ['array-literal', 'return-array', 'nested-loop', 'nested'] },
  { name: 'arrays/triangle_area', file: 'arrays.ts', head: 'triangleArea', args: [vec(6, -2, 2)], tags: ['destructuring', 'intrinsic:sqrt'] },
  { name: 'arrays/gram_matrix', file: 'arrays.ts', head: 'gramMatrix', args: [mat(3, 3, -1, 1)], tags: ['return-matrix', 'array-fill', 'nested-loop'] },
  { name: 'arrays/reverse_in_place', file: 'arrays.ts', head: 'reverseInPlace', args: [vec(5, -2, 2)], tags: ['in-place', 'void', 'while', 'swap'] },
  { name: 'arrays/range_spread', file: 'arrays.ts', head: 'rangeSpread', args: [vec(6, -2, 2)], tags: ['spread', 'intrinsic:max', 'intrinsic:min', 'length'] },
  { name: 'arrays/poly_from_literal', file: 'arrays.ts', head: 'polyFromLiteral', args: [num(-1.5, 1.5)], tags: ['array-literal', 'active-literal', 'nested'] },
  { name: 'arrays/self_scatter', file: 'arrays.ts', head: 'selfScatter', args: [vec(7, -1, 1), vec(7, -1, 1)], tags: ['scatter', 'modulo-index', 'return-array', 'array-literal'] },
  { name: 'arrays/mat_mul_trace', file: 'arrays.ts', head: 'matMulTrace', args: [mat(3, 2, -1, 1), mat(2, 3, -1, 1)], tags: ['nested-loop', 'matrix'] },
  { name: 'arrays/permute_double', file: 'arrays.ts', head: 'permuteDouble', args: [vec(5, -1, 1)], tags: ['alias', 'in-place', 'modulo-index'] },

  // ----------------------------------------------------------------- typed.ts
  { name: 'typed/dot', file: 'typed.ts', head: 'typedDot', args: [f64(5, -2, 2), f64(5, -2, 2)], tags: ['typed', 'loop'] },
  { name: 'typed/scale', file: 'typed.ts', head: 'typedScale', args: [f64(5, -2, 2), num(-2, 2)], tags: ['typed', 'new-float64array', 'return-array'] },
  { name: 'typed/subarray_mean', file: 'typed.ts', head: 'subarrayMean', args: [f64(6, -2, 2)], tags: ['typed', 'subarray'] },
  { name: 'typed/axpy', file: 'typed.ts', head: 'typedAxpy', args: [num(-2, 2), f64(5, -1, 1), f64(5, -1, 1)], tags: ['typed', 'in-place', 'void', 'out-param'] },
  { name: 'typed/block_norms', file: 'typed.ts', head: 'blockNorms', args: [f64(8, -1, 1), int(3)], tags: ['typed', 'subarray', 'intrinsic:min', 'nested-loop'] },
  { name: 'typed/cumprod', file: 'typed.ts', head: 'typedCumprod', args: [f64(5, 0.5, 1.5)], tags: ['typed', 'new-float64array', 'return-array'] },
  { name: 'typed/laplacian_into', file: 'typed.ts', head: 'laplacianInto', args: [f64(6, -1, 1), f64(6, 0, 0)], wrt: ['u'], tags: ['typed', 'out-param', 'void', 'ternary'] },
  { name: 'typed/subarray_write', file: 'typed.ts', head: 'subarrayWrite', args: [f64(6, -1, 1), num(0.5, 1.5)], tags: ['typed', 'subarray', 'alias', 'view-write'] },
  { name: 'typed/for_of', file: 'typed.ts', head: 'typedForOf', args: [f64(6, -2, 2)], tags: ['typed', 'for-of', 'intrinsic:sin'] },

  // --------------------------------------------------------------- objects.ts
  { name: 'objects/point_distance', file: 'objects.ts', head: 'pointDistance', args: [obj({ x: num(-2, 2), y: num(-2, 2) }), obj({ x: num(3, 4), y: num(-2, 2) })], tags: ['object', 'interface'] },
  { name: 'objects/eval_quadratic', file: 'objects.ts', head: 'evalQuadratic', args: [obj({ a: num(-1, 1), b: num(-1, 1), c: num(-1, 1) }), num(-2, 2)], tags: ['object', 'type-alias', 'destructuring'] },
  { name: 'objects/kinetic_energy', file: 'objects.ts', head: 'kineticEnergy', args: [obj({ pos: vec(3, -1, 1), vel: vec(3, -2, 2), mass: num(0.5, 2) })], tags: ['object', 'array-field', 'loop'] },
  { name: 'objects/step_particle', file: 'objects.ts', head: 'stepParticle', args: [obj({ pos: vec(3, -1, 1), vel: vec(3, -1, 1), mass: num(0.5, 2) }), num(0.01, 0.1)], tags: ['object', 'return-object', 'push'] },
  { name: 'objects/polar_to_cart', file: 'objects.ts', head: 'polarToCart', args: [num(0.5, 2), num(-3, 3)], tags: ['return-object', 'intrinsic:cos', 'intrinsic:sin'] },
  { name: 'objects/rotate_tuple', file: 'objects.ts', head: 'rotateTuple', args: [tuple(2, -2, 2), num(-3, 3)], tags: ['tuple', 'destructuring', 'return-tuple'] },
  { name: 'objects/damped_state', file: 'objects.ts', head: 'dampedState', args: [num(-1, 1), num(-1, 1), num(0.1, 1)], tags: ['object-literal', 'field-write', 'loop'] },
  { name: 'objects/stats_of', file: 'objects.ts', head: 'statsOf', args: [vec(6, -2, 2)], tags: ['return-object', 'for-of'] },
  { name: 'objects/line_fit', file: 'objects.ts', head: 'lineFit', args: [vec(5, -2, 2), vec(5, -2, 2)], tags: ['return-object', 'multi-declarator', 'shorthand-property'] },
  { name: 'objects/nested_config', file: 'objects.ts', head: 'nestedConfig', args: [obj({ scale: num(0.5, 2), offset: obj({ x: num(-1, 0), y: num(-1, 1) }), weights: vec(4, -1, 1) }), num(0.5, 2)], tags: ['object', 'nested-object', 'destructuring', 'intrinsic:pow'] },
  { name: 'objects/centroid', file: 'objects.ts', head: 'centroid', args: [obj({ xs: vec(5, -2, 2), ys: vec(5, -2, 2) })], tags: ['object', 'return-object', 'arrow'] },
  { name: 'objects/triangle_tuple_area', file: 'objects.ts', head: 'triangleTupleArea', args: [tuple(2, -2, 2), tuple(2, -2, 2), tuple(2, -2, 2)], tags: ['tuple'] },

  // ----------------------------------------------------------------- calls.ts
  { name: 'calls/two_sites', file: 'calls.ts', head: 'twoSites', args: [num(-2, 2), num(-2, 2)], tags: ['call', 'same-helper-two-sites'] },
  { name: 'calls/three_sites_nested', file: 'calls.ts', head: 'threeSitesNested', args: [num(-2, 2), num(-2, 2)], tags: ['call', 'same-helper-two-sites', 'nested-call'] },
  { name: 'calls/imported_sum_squares', file: 'calls.ts', head: 'importedSumSquares', args: [vec(5, -2, 2), num(-2, 2)], tags: ['call', 'import'] },
  { name: 'calls/imported_horner', file: 'calls.ts', head: 'importedHorner', args: [num(-1, 1), num(-1, 1)], tags: ['call', 'import', 'same-helper-two-sites', 'array-literal'] },
  { name: 'calls/scaled_power_default', file: 'calls.ts', head: 'scaledPower', args: [num(0.2, 2)], tags: ['default-param', 'module-const', 'intrinsic:pow'] },
  { name: 'calls/default_caller', file: 'calls.ts', head: 'defaultCaller', args: [num(0.2, 2)], tags: ['call', 'default-param', 'same-helper-two-sites'] },
  { name: 'calls/weighted_sum', file: 'calls.ts', head: 'weightedSum', args: [vec(5, -2, 2)], tags: ['module-const', 'module-const-array', 'loop'] },
  { name: 'calls/residual_norm', file: 'calls.ts', head: 'residualNorm', args: [mat(3, 3, -1, 1), vec(3, -1, 1), vec(3, -1, 1)], tags: ['call', 'import', 'return-array-call'] },
  { name: 'calls/cosine_similarity', file: 'calls.ts', head: 'cosineSimilarity', args: [vec(4, 0.2, 2), vec(4, 0.2, 2)], tags: ['call', 'same-helper-two-sites', 'return-array-call', 'import'] },
  { name: 'calls/euler_with_helper', file: 'calls.ts', head: 'eulerWithHelper', args: [num(-1, 1), num(-1, 1)], tags: ['call', 'arrow', 'module-const', 'loop'] },
  { name: 'calls/read_then_overwrite', file: 'calls.ts', head: 'readThenOverwrite', args: [vec(4, -1, 1), vec(4, -1, 1)], tags: ['call', 'out-param', 'tbr'] },
  { name: 'calls/helper_writes_out', file: 'calls.ts', head: 'helperWritesOut', args: [mat(3, 4, -1, 1), vec(4, -1, 1)], tags: ['call', 'out-param', 'import', 'array-fill'] },

  // ------------------------------------------------------------- recursion.ts
  { name: 'recursion/pow_rec', file: 'recursion.ts', head: 'powRec', args: [num(-1.5, 1.5), int(7)], tags: ['recursion', 'modulo'] },
  { name: 'recursion/sum_rec', file: 'recursion.ts', head: 'sumRec', args: [vec(5, -2, 2), int(0)], tags: ['recursion', 'array'] },
  { name: 'recursion/horner_rec', file: 'recursion.ts', head: 'hornerRec', args: [vec(5, -1, 1), num(-1.5, 1.5)], tags: ['recursion', 'default-param'] },
  { name: 'recursion/continued_fraction', file: 'recursion.ts', head: 'continuedFraction', args: [num(0.2, 2), int(6)], tags: ['recursion', 'division'] },
  { name: 'recursion/tree_sum', file: 'recursion.ts', head: 'treeSum', args: [vec(6, -2, 2), int(0), int(6)], tags: ['recursion', 'divide-and-conquer', 'bitor-zero'] },
  { name: 'recursion/mutual', file: 'recursion.ts', head: 'evenTerm', args: [num(-1, 1), int(6)], tags: ['recursion', 'mutual-recursion', 'ternary'] },
  { name: 'recursion/mutual_odd', file: 'recursion.ts', head: 'oddTerm', args: [num(-1, 1), int(4)], tags: ['recursion', 'mutual-recursion', 'ternary'] },
  { name: 'recursion/legendre', file: 'recursion.ts', head: 'legendre', args: [int(5), num(-1, 1)], tags: ['recursion', 'arrow', 'double-recursion'] },
  { name: 'recursion/recursive_euler', file: 'recursion.ts', head: 'recursiveEuler', args: [num(-1, 1), num(0.5, 2), int(8)], tags: ['recursion', 'tail-call', 'intrinsic:cos'] },

  // ---------------------------------------------------------------- switch.ts
  { name: 'switch/activate_sigmoid', file: 'switch.ts', head: 'activate', args: [num(-3, 3), str('sigmoid')], tags: ['switch', 'string-flag', 'break'] },
  { name: 'switch/activate_softplus', file: 'switch.ts', head: 'activate', args: [num(-3, 3), str('softplus')], tags: ['switch', 'string-flag', 'break'] },
  { name: 'switch/activate_identity', file: 'switch.ts', head: 'activate', args: [num(-3, 3), str('identity')], tags: ['switch', 'string-flag', 'default'] },
  { name: 'switch/activate_relu', file: 'switch.ts', head: 'activate', args: [num(-3, 3), str('relu')], tags: ['switch', 'string-flag', 'ternary', 'kink'] },
  { name: 'switch/activate_tanh', file: 'switch.ts', head: 'activate', args: [num(-3, 3), str('tanh')], tags: ['switch', 'string-flag', 'intrinsic:tanh'] },
  { name: 'switch/loss_logcosh', file: 'switch.ts', head: 'loss', args: [num(-2, 2), num(-2, 2), str('logcosh')], tags: ['switch', 'string-flag', 'return-in-case'] },
  { name: 'switch/loss_huber', file: 'switch.ts', head: 'loss', args: [num(-2, 2), num(-2, 2), str('huber')], tags: ['switch', 'string-flag', 'return-in-case', 'intrinsic:abs'] },
  { name: 'switch/loss_l2', file: 'switch.ts', head: 'loss', args: [num(-2, 2), num(-2, 2), str('l2')], tags: ['switch', 'string-flag', 'return-in-case'] },
  { name: 'switch/loss_l1', file: 'switch.ts', head: 'loss', args: [num(-2, 2), num(-2, 2), str('l1')], tags: ['switch', 'string-flag', 'return-in-case', 'intrinsic:abs', 'kink'] },
  { name: 'switch/to_meters', file: 'switch.ts', head: 'toMeters', args: [num(-2, 2), str('in')], tags: ['switch', 'fall-through', 'default'] },
  { name: 'switch/to_meters_km', file: 'switch.ts', head: 'toMeters', args: [num(-2, 2), str('km')], tags: ['switch', 'string-flag', 'break'] },
  { name: 'switch/to_meters_m', file: 'switch.ts', head: 'toMeters', args: [num(-2, 2), str('m')], tags: ['switch', 'fall-through', 'default'] },
  { name: 'switch/poly_by_degree', file: 'switch.ts', head: 'polyByDegree', args: [num(-1, 1), int(3)], tags: ['switch', 'int-switch', 'fall-through'] },
  { name: 'switch/poly_by_degree_1', file: 'switch.ts', head: 'polyByDegree', args: [num(-1, 1), int(1)], tags: ['switch', 'int-switch', 'break'] },
  { name: 'switch/poly_by_degree_default', file: 'switch.ts', head: 'polyByDegree', args: [num(-1, 1), int(5)], tags: ['switch', 'int-switch', 'default', 'intrinsic:exp'] },
  { name: 'switch/cyclic_weights', file: 'switch.ts', head: 'cyclicWeights', args: [vec(7, -1, 1)], tags: ['switch', 'switch-in-loop', 'break', 'default'] },
  { name: 'switch/integrate_heun', file: 'switch.ts', head: 'integrate', args: [num(0.5, 2), num(-1, 1), str('heun')], tags: ['switch', 'switch-in-loop', 'block-case'] },
  { name: 'switch/integrate_midpoint', file: 'switch.ts', head: 'integrate', args: [num(0.5, 2), num(-1, 1), str('midpoint')], tags: ['switch', 'switch-in-loop', 'block-case'] },
  { name: 'switch/integrate_euler', file: 'switch.ts', head: 'integrate', args: [num(0.5, 2), num(-1, 1), str('euler')], tags: ['switch', 'switch-in-loop', 'break'] },
  { name: 'switch/quadrature_simpson', file: 'switch.ts', head: 'quadrature', args: [num(-1, 0), num(0.5, 2), str('simpson')], tags: ['switch', 'default', 'return-in-case'] },
  { name: 'switch/quadrature_trap', file: 'switch.ts', head: 'quadrature', args: [num(-1, 0), num(0.5, 2), str('trap')], tags: ['switch', 'string-flag', 'return-in-case'] },
  { name: 'switch/bucketed_rate', file: 'switch.ts', head: 'bucketedRate', args: [num(0.1, 4.9)], tags: ['switch', 'int-switch', 'intrinsic:floor', 'piecewise'] },

  // ------------------------------------------------------------------ misc.ts
  // -------------------------------------------------------------- checkpoint.ts
  { name: 'checkpoint/euler_oscillator', file: 'checkpoint.ts', head: 'eulerOscillator', args: [num(-1, 1), num(-1, 1), num(0.5, 4)], tags: ['binomial-ckp', 'intrinsic:abs'] },
  { name: 'checkpoint/pivoting_relaxation', file: 'checkpoint.ts', head: 'pivotingRelaxation', args: [mat(3, 3, -1, 1), num(0.05, 0.2)], tags: ['binomial-ckp', 'reference', 'swap'] },
  { name: 'checkpoint/lu_det_checkpointed', file: 'checkpoint.ts', head: 'luDetCheckpointed', args: [mat(4, 4, -1, 1)], tags: ['checkpoint-call', 'reference', 'swap', 'pivoting'] },
  { name: 'checkpoint/heat_rod', file: 'checkpoint.ts', head: 'heatRod', args: [f64(6, -1, 1), num(0.1, 0.3), int(12)], tags: ['binomial-ckp', 'typed', 'call-writes'] },
  { name: 'checkpoint/orbit', file: 'checkpoint.ts', head: 'orbit', args: [obj({ x: num(0.8, 1.2), y: num(0.2, 0.5), vx: num(-0.3, 0.3), vy: num(0.6, 1) }), num(0.8, 1.2)], tags: ['binomial-ckp', 'object', 'flag-state'] },
  { name: 'checkpoint/relax_many', file: 'checkpoint.ts', head: 'relaxMany', args: [vec(5, -1, 1), num(0.1, 0.4)], tags: ['binomial-ckp', 'callee', 'loop'] },
  { name: 'checkpoint/row_losses', file: 'checkpoint.ts', head: 'rowLosses', args: [mat(4, 3, -1, 1), vec(3, -1, 1), vec(4, 0, 0)], tags: ['ii-loop', 'alias'] },
  { name: 'checkpoint/scale_rows', file: 'checkpoint.ts', head: 'scaleRows', args: [mat(3, 3, -1, 1), num(0.5, 1.5)], tags: ['ii-loop', 'rows'] },
  { name: 'checkpoint/nested_checkpoints', file: 'checkpoint.ts', head: 'nestedCheckpoints', args: [num(0.5, 1), num(-0.5, 0.5), num(0.05, 0.2)], tags: ['binomial-ckp', 'nested-ckp'] },

  { name: 'misc/harmonic_euler', file: 'misc.ts', head: 'harmonicEuler', args: [num(-1, 1), num(-1, 1), num(0.5, 4)], tags: ['physics', 'euler', 'loop', 'nested'] },
  { name: 'misc/rk4_decay', file: 'misc.ts', head: 'rk4Decay', args: [num(-1, 1), num(0.2, 2)], tags: ['ode', 'rk4', 'intrinsic:sin', 'nested'] },
  { name: 'misc/projectile_range', file: 'misc.ts', head: 'projectileRange', args: [num(5, 15), num(0.3, 1.2), num(0.05, 0.3)], tags: ['physics', 'while', 'data-dependent-trip'] },
  { name: 'misc/variance', file: 'misc.ts', head: 'variance', args: [vec(6, -2, 2)], tags: ['statistics', 'loop', 'nested'] },
  { name: 'misc/pearson', file: 'misc.ts', head: 'pearson', args: [vec(6, -2, 2), vec(6, -2, 2)], tags: ['statistics', 'multi-declarator', 'pow-operator'] },
  { name: 'misc/gaussian_loglik', file: 'misc.ts', head: 'gaussianLogLik', args: [vec(6, -2, 2), num(-1, 1), num(0.5, 2)], tags: ['statistics', 'for-of', 'intrinsic:log', 'math-pi', 'nested'] },
  { name: 'misc/cross_entropy', file: 'misc.ts', head: 'crossEntropy', args: [vec(5, -2, 2), int(2)], tags: ['intrinsic:max', 'intrinsic:exp', 'intrinsic:log', 'passive-index'] },
  { name: 'misc/spring_chain', file: 'misc.ts', head: 'springChain', args: [vec(6, 0, 5), num(0.5, 2), num(0.5, 1.5)], tags: ['physics', 'loop', 'nested'] },
  { name: 'misc/heat_step', file: 'misc.ts', head: 'heatStep', args: [vec(7, -1, 1), num(0.1, 0.4)], tags: ['pde', 'return-array', 'array-fill', 'nested'] },
  { name: 'misc/kepler_solve', file: 'misc.ts', head: 'keplerSolve', args: [num(0.2, 3), num(0.05, 0.6)], tags: ['newton', 'fixed-point', 'intrinsic:sin', 'intrinsic:cos', 'nested'] },
  { name: 'misc/gradient_descent', file: 'misc.ts', head: 'gradientDescent', args: [num(-2, 2), num(-2, 2), num(0.01, 0.15)], tags: ['optimisation', 'loop', 'nested'] },
  { name: 'misc/lotka_volterra', file: 'misc.ts', head: 'lotkaVolterra', args: [num(0.5, 2), num(0.5, 2), num(0.5, 1.5), num(0.2, 0.8)], tags: ['ode', 'return-array', 'array-literal'] },
  { name: 'misc/trapezoid_integral', file: 'misc.ts', head: 'trapezoidIntegral', args: [vec(7, -1, 1), num(0.05, 0.5)], tags: ['quadrature', 'loop', 'nested'] },
  { name: 'misc/bisection_with_newton', file: 'misc.ts', head: 'bisectionWithNewton', args: [num(1.5, 20)], tags: ['while', 'bisection', 'newton', 'branch-active'] },
  { name: 'misc/logistic_regression_loss', file: 'misc.ts', head: 'logisticRegressionLoss', args: [vec(3, -1, 1), mat(5, 3, -1, 1), vec(5, 0, 1)], wrt: ['w'], tags: ['ml', 'nested-loop', 'intrinsic:log', 'intrinsic:exp'] },
  { name: 'misc/pendulum', file: 'misc.ts', head: 'pendulumPeriodEnergy', args: [num(0.1, 1.2), num(0.5, 2)], tags: ['physics', 'symplectic-euler', 'intrinsic:sin', 'intrinsic:cos', 'nested'] },
  { name: 'misc/exp_smoothing', file: 'misc.ts', head: 'expSmoothing', args: [vec(7, -1, 1), num(0.1, 0.9)], tags: ['time-series', 'loop', 'nested'] },
  { name: 'misc/table_interp', file: 'misc.ts', head: 'tableInterp', args: [num(0.1, 3.9), num(0.5, 2)], tags: ['module-const', 'module-const-array', 'intrinsic:floor', 'intrinsic:min', 'passive-index', 'piecewise'] },

  // -------------------------------------------------------------- extra.ts
  { name: 'extra/labelled_block', file: 'extra.ts', head: 'labelledBlockClamp', args: [num(0.5, 2.5), num(2, 3)], tags: ['labelled', 'block', 'unary-plus'] },
  { name: 'extra/flagged_sum', file: 'extra.ts', head: 'flaggedSum', args: [vec(5, -1, 1)], tags: ['bool-literal', 'default-param', 'nested'] },
  { name: 'extra/scratch_reuse', file: 'extra.ts', head: 'scratchReuse', args: [vec(4, -1, 1), vec(3, 0.5, 1.5)], tags: ['whole-array-overwrite'] },

  // -------------------------------------------------------------- references.ts
  { name: 'references/rebind_integrator', file: 'references.ts', head: 'rebindIntegrator', args: [vec(2, -1, 1)], tags: ['reference', 'self-rebind', 'loop'] },
  { name: 'references/rebind_pair', file: 'references.ts', head: 'rebindPair', args: [vec(2, -1, 1)], tags: ['reference', 'self-rebind'] },
  { name: 'references/rebind_object', file: 'references.ts', head: 'rebindObject', args: [num(-1, 1), num(-1, 1)], tags: ['reference', 'self-rebind', 'object', 'loop'] },
  { name: 'references/rebind_matrix', file: 'references.ts', head: 'rebindMatrix', args: [mat(2, 2, -1, 1)], tags: ['reference', 'self-rebind', 'matrix', 'loop'] },
  { name: 'references/rebind_tuple', file: 'references.ts', head: 'rebindTuple', args: [num(-1, 1), num(-1, 1)], tags: ['reference', 'self-rebind', 'tuple', 'loop'] },
  { name: 'references/swap_rows_in_place', file: 'references.ts', head: 'swapRowsInPlace', args: [mat(2, 2, -1, 1)], tags: ['reference', 'swap'] },
  { name: 'references/swap_rows_of_copy', file: 'references.ts', head: 'swapRowsOfCopy', args: [mat(3, 2, -1, 1)], tags: ['reference', 'swap', 'helper-array'] },
  { name: 'references/row_store', file: 'references.ts', head: 'rowStore', args: [mat(3, 2, -1, 1)], tags: ['reference', 'row-store'] },
  { name: 'references/alias_writes', file: 'references.ts', head: 'aliasWrites', args: [vec(2, -1, 1)], tags: ['reference', 'alias'] },
  { name: 'references/lu_det', file: 'references.ts', head: 'luDet', args: [mat(4, 4, -1, 1)], tags: ['reference', 'swap', 'pivoting'] },
  { name: 'references/lu_solve', file: 'references.ts', head: 'luSolve', args: [mat(4, 4, -1, 1), vec(4, -1, 1)], tags: ['reference', 'swap', 'pivoting', 'return-array'] },
  { name: 'references/field_rebind', file: 'references.ts', head: 'fieldRebind', args: [obj({ x: vec(2, -1, 1), m: num(0.5, 1.5) })], tags: ['reference', 'field-store', 'object', 'loop'] },
  { name: 'references/array_of_objects', file: 'references.ts', head: 'arrayOfObjects', args: [list(3, obj({ pos: num(-1, 1), vel: num(-1, 1) })), num(0.05, 0.2)], tags: ['reference', 'row-store', 'array-of-objects', 'loop'] },
  { name: 'references/helper_rebind', file: 'references.ts', head: 'helperRebind', args: [vec(2, -1, 1), num(0.5, 0.9)], tags: ['reference', 'self-rebind', 'helper-array', 'loop'] },
  { name: 'references/returned_argument', file: 'references.ts', head: 'returnedArgument', args: [vec(2, -1, 1), num(0.5, 1.5)], tags: ['reference', 'alias', 'returns-argument'] },
  { name: 'references/returned_fresh_argument', file: 'references.ts', head: 'returnedFreshArgument', args: [vec(2, -1, 1), num(0.5, 1.5)], tags: ['reference', 'returns-argument', 'copy'] },
  { name: 'references/conditional_row_alias', file: 'references.ts', head: 'conditionalRowAlias', args: [mat(2, 2, -1, 1), num(0.2, 1)], tags: ['reference', 'alias', 'row-store', 'copy-in-literal'] },
  { name: 'references/rows_rebuilt_and_swapped', file: 'references.ts', head: 'rowsRebuiltAndSwapped', args: [mat(3, 2, -1, 1)], tags: ['reference', 'self-rebind', 'swap', 'loop'] },
  { name: 'references/parameter_written_through_alias', file: 'references.ts', head: 'parameterWrittenThroughAlias', args: [vec(2, -1, 1)], tags: ['reference', 'alias', 'tbr'] },
  { name: 'references/field_rebuilt_from_old', file: 'references.ts', head: 'fieldRebuiltFromOld', args: [num(-1, 1)], tags: ['reference', 'self-rebind', 'field-store'] },
  { name: 'references/swap_objects_in_loop', file: 'references.ts', head: 'swapObjectsInLoop', args: [obj({ pos: num(-1, 1), vel: num(-1, 1) }), obj({ pos: num(-1, 1), vel: num(-1, 1) })], tags: ['reference', 'swap', 'object', 'loop'] },

  // -------------------------------------------------------------- models.ts
  { name: 'models/mlp_loss', file: 'models.ts', head: 'mlpLoss', args: [mat(4, 2, -1, 1), vec(4, -1, 1), mat(3, 4, -1, 1), vec(3, -1, 1), mat(5, 2, -1, 1), num(0.05, 0.2)], wrt: ['W1', 'b1', 'W2', 'b2', 'lambda'], tags: ['ml', 'fused-reduction', 'push', 'spread-max', 'for-of'] },

  // -------------------------------------------------------------- js-var.ts
  { name: 'js-var/invert4', file: 'js-var.ts', head: 'invert4', args: [f64(16, -1, 1)], tags: ['js', 'var', 'return-array'] },
  { name: 'js-var/polyval', file: 'js-var.ts', head: 'polyvalVar', args: [vec(5, -1, 1), num(-1, 1)], tags: ['js', 'var', 'loop'] },
  { name: 'js-var/kepler_newton', file: 'js-var.ts', head: 'keplerNewton', args: [num(0.2, 2.5), num(0.05, 0.6)], tags: ['js', 'var', 'loop'] },
  { name: 'js-var/skewness', file: 'js-var.ts', head: 'skewnessVar', args: [vec(6, -1, 1)], tags: ['js', 'var', 'var-hoisted', 'loop'] },
  { name: 'js-var/simpson', file: 'js-var.ts', head: 'simpsonVar', args: [num(-1, 0), num(0.5, 1.5), num(0.2, 2)], tags: ['js', 'var', 'module-var', 'loop'] },
  { name: 'js-var/softmax_xent', file: 'js-var.ts', head: 'softmaxXentVar', args: [vec(5, -2, 2), int(2)], tags: ['js', 'var', 'var-redeclared', 'loop'] },
  { name: 'js-var/total_variation', file: 'js-var.ts', head: 'totalVariationVar', args: [vec(6, -1, 1)], tags: ['js', 'var', 'var-carried', 'loop'] },
  { name: 'js-var/huber', file: 'js-var.ts', head: 'huberVar', args: [vec(6, -2, 2), num(0.5, 1.5)], tags: ['js', 'var', 'var-unassigned', 'loop'] },
  { name: 'js-var/ema', file: 'js-var.ts', head: 'emaVar', args: [vec(6, -1, 1), num(0.2, 0.8)], tags: ['js', 'var', 'var-carried', 'loop'] },
  { name: 'js-var/weighted_lag_for_in', file: 'js-var.ts', head: 'weightedLagForIn', args: [vec(6, -1, 1), vec(6, -1, 1)], tags: ['js', 'var', 'for-in', 'loop'] },
  { name: 'js-var/rebind_in_for_of', file: 'js-var.ts', head: 'rebindInForOf', args: [vec(4, -1, 1), num(0.5, 1.5)], tags: ['js', 'for-of', 'rebind', 'loop'] },

  // -------------------------------------------------------------- js-arrays.ts
  { name: 'js-arrays/moving_average_roughness', file: 'js-arrays.ts', head: 'movingAverageRoughness', args: [vec(7, -1, 1), { kind: 'int', value: 3 }], tags: ['js', 'untyped-push'] },
  { name: 'js-arrays/prefix_sum_penalty', file: 'js-arrays.ts', head: 'prefixSumPenalty', args: [vec(5, -1, 1)], tags: ['js', 'array-fill'] },
  { name: 'js-arrays/poly_product_at', file: 'js-arrays.ts', head: 'polyProductAt', args: [vec(3, -1, 1), vec(3, -1, 1), num(-1, 1)], tags: ['js', 'array-fill', 'spread', 'concat'] },
  { name: 'js-arrays/flipped_convolution', file: 'js-arrays.ts', head: 'flippedConvolution', args: [vec(7, -1, 1), vec(3, -1, 1)], tags: ['js', 'reverse', 'slice-range', 'push'] },
  { name: 'js-arrays/binned_weighted_mean', file: 'js-arrays.ts', head: 'binnedWeightedMean', args: [vec(6, -1, 1), vec(6, 0.5, 1.5)], tags: ['js', 'untyped-push', 'passive-array'] },
  { name: 'js-arrays/smooth_total_variation', file: 'js-arrays.ts', head: 'smoothTotalVariation', args: [vec(6, -1, 1), num(0.1, 0.5)], tags: ['js', 'unfilled-array'] },
  { name: 'js-arrays/trimmed_mean_without_peak', file: 'js-arrays.ts', head: 'trimmedMeanWithoutPeak', args: [vec(6, -1, 1)], tags: ['js', 'slice-range', 'indexOf', 'includes'] },
  { name: 'js-arrays/spring_state_energy', file: 'js-arrays.ts', head: 'springStateEnergy', args: [vec(2, -1, 1), vec(2, -1, 1), num(0.5, 2)], tags: ['js', 'spread', 'self-rebind'] },
  { name: 'js-arrays/stacked_rows_norm', file: 'js-arrays.ts', head: 'stackedRowsNorm', args: [mat(2, 3, -1, 1), mat(2, 3, -1, 1)], tags: ['js', 'concat', 'reverse', 'alias', 'fill-value'] },
  { name: 'js-arrays/soft_max_score', file: 'js-arrays.ts', head: 'softMaxScore', args: [num(-1, 1), num(-1, 1), vec(4, -1, 1)], tags: ['js', 'rest-parameter', 'spread'] },
  { name: 'js-arrays/flattened_curve', file: 'js-arrays.ts', head: 'flattenedCurve', args: [vec(5, -1, 1), num(0.5, 2)], tags: ['js', 'push-many'] },
  { name: 'js-arrays/rpn_polynomial', file: 'js-arrays.ts', head: 'rpnPolynomial', args: [vec(5, -1, 1), num(-1.2, 1.2)], tags: ['js', 'pop', 'pop-value', 'stack'] },
  { name: 'js-arrays/block_energy', file: 'js-arrays.ts', head: 'blockEnergy', args: [vec(10, -1.5, 1.5)], tags: ['js', 'length-assign', 'buffer-reuse'] },
  { name: 'js-arrays/truncated_mean_square', file: 'js-arrays.ts', head: 'truncatedMeanSquare', args: [vec(6, -1, 1), int(4)], tags: ['js', 'length-assign', 'parameter-truncated'] },
  { name: 'js-arrays/replace_last_square', file: 'js-arrays.ts', head: 'replaceLastSquare', args: [vec(4, -1, 1)], tags: ['js', 'pop', 'pop-then-push'] },
  { name: 'js-arrays/unit_twice_with_norm', file: 'js-arrays.ts', head: 'unitTwiceWithNorm', args: [vec(3, 0.5, 1.5)], tags: ['js', 'concat', 'argument-order', 'writes-argument'] },
  { name: 'js-arrays/accepted_walk', file: 'js-arrays.ts', head: 'acceptedWalk', args: [vec(6, -2, 2), num(-0.5, 0.5)], tags: ['js', 'pop', 'pop-value', 'while-pop'] },
  { name: 'js-arrays/undone_steps', file: 'js-arrays.ts', head: 'undoneSteps', args: [vec(2, -1, 1), num(0.05, 0.2)], tags: ['js', 'pop', 'pop-row', 'pop-value'] },
  { name: 'js-arrays/popped_centre_of_mass', file: 'js-arrays.ts', head: 'poppedCentreOfMass', args: [{ kind: 'list', n: 4, of: { kind: 'obj', fields: { m: num(0.5, 2), x: num(-1, 1) } } }, num(0.5, 1.5)], tags: ['js', 'pop', 'pop-object', 'while-pop'] },
  { name: 'js-arrays/trimmed_rows_product', file: 'js-arrays.ts', head: 'trimmedRowsProduct', args: [mat(4, 2, -1, 1), int(2)], tags: ['js', 'length-assign', 'pop-row'] },

  // -------------------------------------------------------------- js-nullable.ts
  { name: 'js-nullable/smoothed_penalty', file: 'js-nullable.ts', head: 'smoothedPenalty', args: [vec(5, -1, 1), obj({ window: int(3), decay: num(0.4, 0.8) })], wrt: ['xs'], tags: ['js', 'truthiness'] },
  { name: 'js-nullable/smoothed_penalty_no_options', file: 'js-nullable.ts', head: 'smoothedPenalty', args: [vec(4, -1, 1), { kind: 'absent' }], tags: ['js', 'truthiness'] },
  { name: 'js-nullable/quadratic_root', file: 'js-nullable.ts', head: 'quadraticRoot', args: [num(0.5, 2), num(1, 3), num(-2, -0.5)], tags: ['js', 'nullable-result'] },
  { name: 'js-nullable/quadratic_root_null', file: 'js-nullable.ts', head: 'quadraticRoot', args: [num(1, 2), num(-0.5, 0.5), num(1, 2)], tags: ['js', 'nullable-result', 'null-result'] },
  { name: 'js-nullable/root_or_penalty', file: 'js-nullable.ts', head: 'rootOrPenalty', args: [num(0.5, 2), num(-2, 2)], tags: ['js', 'nullable-helper', 'null-test'] },
  { name: 'js-nullable/log_with_default', file: 'js-nullable.ts', head: 'logWithDefault', args: [num(0.3, 2), num(-2, -0.3)], tags: ['js', 'nullable-helper', 'nullish'] },
  { name: 'js-nullable/newton_sqrt_options', file: 'js-nullable.ts', head: 'newtonSqrt', args: [num(0.5, 4), obj({ scale: num(0.5, 2), maxIter: int(30) })], tags: ['js', 'optional-field', 'nullish', 'break'] },
  { name: 'js-nullable/newton_sqrt_defaults', file: 'js-nullable.ts', head: 'newtonSqrt', args: [num(0.5, 4), obj({})], tags: ['js', 'optional-field', 'nullish'] },
  { name: 'js-nullable/weighted_mean', file: 'js-nullable.ts', head: 'weightedMean', args: [vec(5, -1, 1), vec(5, 0.5, 1.5)], wrt: ['xs'], tags: ['js', 'optional-param', 'null-test'] },
  { name: 'js-nullable/weighted_mean_uniform', file: 'js-nullable.ts', head: 'weightedMean', args: [vec(5, -1, 1), { kind: 'absent' }], tags: ['js', 'optional-param', 'absent'] },
  { name: 'js-nullable/line_intersection', file: 'js-nullable.ts', head: 'lineIntersection', args: [num(0.5, 1.5), num(-1, 1), num(-1.5, -0.5), num(-1, 1)], tags: ['js', 'nullable-helper', 'loose-null-test'] },
  { name: 'js-nullable/shifted_power', file: 'js-nullable.ts', head: 'shiftedPower', args: [num(0.5, 1.5), num(0.5, 2), num(0.2, 1)], tags: ['js', 'optional-param', 'default-param', 'typeof'] },
  { name: 'js-nullable/shifted_power_absent', file: 'js-nullable.ts', head: 'shiftedPower', args: [num(0.5, 1.5), { kind: 'absent' }, num(0.2, 1)], tags: ['js', 'optional-param', 'typeof', 'absent'] },
  { name: 'js-nullable/truthy_defaults', file: 'js-nullable.ts', head: 'truthyDefaults', args: [num(-1, 1), num(0.5, 1.5), num(0.5, 2)], tags: ['js', 'or-number', 'and-number'] },
  { name: 'js-nullable/truthy_defaults_zero', file: 'js-nullable.ts', head: 'truthyDefaults', args: [num(-1, 1), num(0.5, 1.5), int(0)], tags: ['js', 'or-number', 'and-number', 'falsy'] },
  { name: 'js-nullable/clamped_sum', file: 'js-nullable.ts', head: 'clampedSum', args: [vec(4, -1.5, 1.5), vec(4, 0.2, 0.8)], wrt: ['xs'], tags: ['js', 'array-isarray', 'nullable-array'] },
  { name: 'js-nullable/spring_energy', file: 'js-nullable.ts', head: 'springEnergy', args: [num(0, 2), obj({ k: num(0.5, 2), rest: num(0.5, 1.5), damping: num(0.1, 0.5) })], tags: ['js', 'in-test', 'optional-field'] },
  { name: 'js-nullable/spring_energy_bare', file: 'js-nullable.ts', head: 'springEnergy', args: [num(0, 2), obj({ k: num(0.5, 2) })], tags: ['js', 'in-test', 'optional-field'] },
  { name: 'js-nullable/two_step_energy', file: 'js-nullable.ts', head: 'twoStepEnergy', args: [vec(3, -1, 1), obj({ dt: num(0.2, 0.5), friction: num(0.1, 0.4) })], tags: ['js', 'optional-field', 'optional-field-literal'] },
  { name: 'js-nullable/two_step_energy_frictionless', file: 'js-nullable.ts', head: 'twoStepEnergy', args: [vec(3, -1, 1), obj({ dt: num(0.2, 0.5) })], tags: ['js', 'optional-field', 'optional-field-absent', 'optional-field-literal'] },
  { name: 'js-nullable/path_length_closed', file: 'js-nullable.ts', head: 'pathLength', args: [mat(4, 2, -1, 1), bool(true)], tags: ['js', 'optional-boolean'] },
  { name: 'js-nullable/path_length_open', file: 'js-nullable.ts', head: 'pathLength', args: [mat(4, 2, -1, 1), { kind: 'absent' }], tags: ['js', 'optional-boolean', 'absent'] },
  { name: 'js-nullable/smooth_norm_defaults', file: 'js-nullable.ts', head: 'smoothNorm', args: [vec(5, -1, 1), obj({ eps: num(0.01, 0.1) })], tags: ['js', 'optional-boolean', 'optional-field-absent'] },
  { name: 'js-nullable/smooth_norm_flags', file: 'js-nullable.ts', head: 'smoothNorm', args: [vec(5, -1, 1), obj({ normalize: bool(false), squared: bool(true) })], tags: ['js', 'optional-boolean'] },
  { name: 'js-nullable/soft_clamped_both', file: 'js-nullable.ts', head: 'softClamped', args: [vec(4, -1, 1), obj({ lo: num(-0.5, -0.2), hi: num(0.2, 0.5) })], tags: ['js', 'nullable-let-later'] },
  { name: 'js-nullable/soft_clamped_low', file: 'js-nullable.ts', head: 'softClamped', args: [vec(4, -1, 1), obj({ lo: num(-0.5, -0.2) })], tags: ['js', 'nullable-let-later', 'optional-field-absent'] },
];

// ------------------------------------------------------------- js-exprs.ts
corpus.push(
  { name: 'js-exprs/symmetric_pair_sum', file: 'js-exprs.ts', head: 'symmetricPairSum', args: [vec(5, -1, 1)], tags: ['js', 'comma-for', 'two-pointer'] },
  { name: 'js-exprs/sorted_weighted_sum', file: 'js-exprs.ts', head: 'sortedWeightedSum', args: [vec(4, -1, 1), vec(4, 0.5, 1.5)], tags: ['js', 'destructuring-swap', 'inc-in-index', 'sorting-network'] },
  { name: 'js-exprs/stride_sum', file: 'js-exprs.ts', head: 'strideSum', args: [vec(8, -1, 1), int(8)], tags: ['js', 'assign-in-condition', 'do-while'] },
  { name: 'js-exprs/polar_energy', file: 'js-exprs.ts', head: 'polarEnergy', args: [obj({ x: num(0.5, 1.5), y: num(0.5, 1.5) }), vec(2, -1, 0), obj({ scale: num(0.5, 1.5), offset: num(-1, 1) })], tags: ['js', 'destructured-params', 'destructuring-default'] },
  { name: 'js-exprs/softmax_loss', file: 'js-exprs.ts', head: 'softmaxLoss', args: [vec(4, -2, 2), int(1)], tags: ['js', 'spread-max', 'spread-hypot', 'for-of'] },
  { name: 'js-exprs/gram_schmidt_pair', file: 'js-exprs.ts', head: 'gramSchmidtPair', args: [vec(3, 0.5, 1.5), vec(3, -1, 1)], tags: ['js', 'destructuring-swap', 'reference'] },
  { name: 'js-exprs/compact_dot', file: 'js-exprs.ts', head: 'compactDot', args: [vec(4, -1, 1), vec(4, -1, 1)], tags: ['js', 'assign-in-expression'] },
  { name: 'js-exprs/ring_smoother', file: 'js-exprs.ts', head: 'ringSmoother', args: [vec(5, -1, 1), num(0.2, 0.8)], tags: ['js', 'inc-in-index', 'chained-assign', 'assign-in-expression'] },
  { name: 'js-exprs/pivoted_det3', file: 'js-exprs.ts', head: 'pivotedDet3', args: [mat(3, 3, -1, 1)], tags: ['js', 'destructuring-swap', 'row-swap', 'pivoting'] },
  { name: 'js-exprs/spread_blend', file: 'js-exprs.ts', head: 'spreadBlend', args: [tuple(2, -1, 1), num(0.2, 0.8), vec(3, -1, 0)], tags: ['js', 'spread-tuple', 'spread-min', 'comma-expression'] },
  { name: 'js-exprs/piecewise_features', file: 'js-exprs.ts', head: 'piecewiseFeatures', args: [vec(5, -1, 1)], tags: ['js', 'cond-fresh-arrays'] },
);

// ------------------------------------------------------------- callbacks.ts
corpus.push(
  { name: 'callbacks/sample_variance', file: 'callbacks.ts', head: 'sampleVariance', args: [vec(5, -1, 1)], tags: ['js', 'map', 'reduce'] },
  { name: 'callbacks/softmax_cross_entropy', file: 'callbacks.ts', head: 'softmaxCrossEntropy', args: [vec(4, -2, 2), int(2)], tags: ['js', 'map', 'reduce-no-init'] },
  { name: 'callbacks/log_sum_exp', file: 'callbacks.ts', head: 'logSumExp', args: [vec(5, -2, 2)], tags: ['js', 'map-reduce-chain', 'spread-max'] },
  { name: 'callbacks/spring_chain_energy', file: 'callbacks.ts', head: 'springChainEnergy', args: [vec(5, 0, 3), num(0.5, 2)], tags: ['js', 'forEach', 'closure-writes', 'callback-return'] },
  { name: 'callbacks/hinge_residual_loss', file: 'callbacks.ts', head: 'hingeResidualLoss', args: [vec(6, -1, 1), vec(6, -1, 1)], tags: ['js', 'map', 'filter', 'reduce'] },
  { name: 'callbacks/poly_from_coefficients', file: 'callbacks.ts', head: 'polyFromCoefficients', args: [vec(4, -1, 1), num(0.5, 1.5)], tags: ['js', 'array-from-map', 'reduce'] },
  { name: 'callbacks/soft_dot', file: 'callbacks.ts', head: 'softDot', args: [vec(4, -1, 1), vec(4, -1, 1)], tags: ['js', 'named-callback', 'reduce-index'] },
  { name: 'callbacks/guarded_log_likelihood', file: 'callbacks.ts', head: 'guardedLogLikelihood', args: [vec(5, -1, 1), num(-0.2, 0.2), num(0.5, 1)], tags: ['js', 'local-callback', 'some', 'every', 'forEach'] },
  { name: 'callbacks/first_above', file: 'callbacks.ts', head: 'firstAbove', args: [vec(5, -1, 1), num(0.1, 0.2)], tags: ['js', 'find', 'findIndex', 'nullish'] },
  { name: 'callbacks/pair_features', file: 'callbacks.ts', head: 'pairFeatures', args: [vec(4, -1, 1), num(0.5, 1.5)], tags: ['js', 'flatMap', 'reduceRight'] },
  { name: 'callbacks/row_soft_max', file: 'callbacks.ts', head: 'rowSoftMax', args: [mat(3, 3, -1, 1), num(0.5, 2)], tags: ['js', 'nested-callbacks', 'map-reduce-chain'] },
  { name: 'callbacks/huber_total', file: 'callbacks.ts', head: 'huberTotal', args: [vec(6, -2, 2), num(0.5, 1)], tags: ['js', 'callback-return', 'map'] },
  { name: 'callbacks/typed_scaled_norm', file: 'callbacks.ts', head: 'typedScaledNorm', args: [f64(5, -1, 1), num(0.5, 2)], tags: ['js', 'typed', 'map', 'reduce'] },
  { name: 'callbacks/ragged_weighted_sum', file: 'callbacks.ts', head: 'raggedWeightedSum', args: [mat(3, 3, -1, 1), vec(3, -1, 1)], tags: ['js', 'forEach', 'nested-forEach-expression-body'] },
);
// ------------------------------------------------------------- js-typed.ts
corpus.push(
  { name: 'js-typed/pivoted_determinant', file: 'js-typed.ts', head: 'pivotedDeterminant', args: [mat(4, 4, -1, 1), int(4)], tags: ['js', 'int32array', 'pivoting'] },
  { name: 'js-typed/pivoted_solve_norm', file: 'js-typed.ts', head: 'pivotedSolveNorm', args: [mat(3, 3, -1, 1), vec(3, -1, 1)], tags: ['js', 'int32array', 'pivoting', 'for-of'] },
  { name: 'js-typed/signed_shrinkage', file: 'js-typed.ts', head: 'signedShrinkage', args: [vec(5, -2, 2), num(0.1, 0.3)], tags: ['js', 'int8array', 'typed-fill'] },
  { name: 'js-typed/balanced_loss', file: 'js-typed.ts', head: 'balancedLoss', args: [vec(6, -1, 1), vec(6, 0, 0.99), int(3)], wrt: ['pred'], tags: ['js', 'uint32array', 'uint8array', 'counters'] },
  { name: 'js-typed/float32_model', file: 'js-typed.ts', head: 'float32Model', args: [vec(4, -1, 1), vec(4, -1, 1), num(-0.5, 0.5)], wrt: ['x', 'bias'], tags: ['js', 'float32array', 'typed-from'] },
  { name: 'js-typed/float32_kernel', file: 'js-typed.ts', head: 'float32Kernel', args: [vec(4, -0.9, 0.9)], tags: ['js', 'float32array'] },
);
corpus.push(
  { name: 'js-typed/deviation_from_first', file: 'js-typed.ts', head: 'deviationFromFirst', args: [vec(5, -1, 1)], tags: ['js', 'rest-element', 'for-of'] },
  { name: 'js-typed/rest_rows', file: 'js-typed.ts', head: 'restRows', args: [mat(3, 2, -1, 1), tuple(3, -1, 1)], tags: ['js', 'rest-element', 'rest-param', 'row-alias'] },
);
// ------------------------------------------------------------- classes.ts
corpus.push(
  { name: 'classes/spring_run', file: 'classes.ts', head: 'springRun', args: [num(-1, 1), num(-1, 1), num(0.5, 2), num(0.1, 0.5)], tags: ['js', 'class', 'method', 'getter', 'setter', 'static-method', 'parameter-property'] },
  { name: 'classes/polyline_cost', file: 'classes.ts', head: 'polylineCost', args: [vec(4, -1, 1), vec(4, -1, 1), num(-1, 1), num(-1, 1)], tags: ['js', 'class', 'value-class', 'instances-in-array'] },
  { name: 'classes/kalman_track', file: 'classes.ts', head: 'kalmanTrack', args: [mat(3, 2, -1, 1), vec(2, -1, 1), num(0.1, 0.5), num(0.5, 1.5)], tags: ['js', 'class', 'array-fields', 'getter'] },
  { name: 'classes/mlp_loss', file: 'classes.ts', head: 'mlpLoss', args: [mat(3, 2, -1, 1), vec(3, -0.5, 0.5), mat(1, 3, -1, 1), vec(1, -0.5, 0.5), vec(2, -1, 1), num(-0.5, 0.5)], tags: ['js', 'class', 'instances-in-field', 'returns-this'] },
  { name: 'classes/running_average', file: 'classes.ts', head: 'runningAverage', args: [vec(5, -1, 1)], tags: ['js', 'class', 'setter', 'getter', 'field-initializers'] },
  { name: 'classes/orbit_energy', file: 'classes.ts', head: 'orbitEnergy', args: [obj({ vel: num(-1, 1), pos: num(1, 2), mass: num(0.5, 2) }), num(0.5, 2)], tags: ['js', 'class', 'class-as-type', 'nested'] },
  { name: 'classes/sensor_fusion', file: 'classes.ts', head: 'sensorFusion', args: [vec(5, -1, 1), num(0.5, 1.5), num(0.2, 0.8), num(-1, 1)], tags: ['js', 'class', 'extends', 'super-call', 'super-method', 'implicit-constructor'] },
  { name: 'classes/sample_variance', file: 'classes.ts', head: 'sampleVariance', args: [vec(5, -1, 1)], tags: ['js', 'class', 'method-named-push'] },
  { name: 'classes/chain_energy', file: 'classes.ts', head: 'chainEnergy', args: [vec(4, -1, 1)], tags: ['js', 'class', 'this-in-arrow', 'copy-argument'] },
  { name: 'classes/pulled_path', file: 'classes.ts', head: 'pulledPath', args: [vec(2, 1, 2), num(0.2, 0.5), num(0.1, 0.3)], tags: ['js', 'namespace-object', 'this-call', 'in-loop'] },
);
// ------------------------------------------------------------- typed arrays' set, object rest
corpus.push(
  { name: 'js-typed/sliding_energy', file: 'js-typed.ts', head: 'slidingEnergy', args: [vec(6, -1, 1), num(0.5, 1.5)], tags: ['js', 'typed-set', 'subarray', 'overlap'] },
  { name: 'js-typed/packed_quadratic', file: 'js-typed.ts', head: 'packedQuadratic', args: [vec(3, -1, 1), f64(2, -1, 1), num(0.5, 1.5)], tags: ['js', 'typed-set'] },
  { name: 'js-exprs/penalized_residual', file: 'js-exprs.ts', head: 'penalizedResidual', args: [vec(3, -1, 1), obj({ rate: num(0.1, 0.5), decay: num(0.1, 0.3), weights: vec(3, -1, 1) })], tags: ['js', 'object-rest', 'shared-array-field'] },
  { name: 'js-exprs/shoelace_area', file: 'js-exprs.ts', head: 'shoelaceArea', args: [vec(5, -1, 1), vec(5, -1, 1)], tags: ['js', 'for-update-temp', 'continue'] },
  { name: 'js-exprs/scaled_first_row', file: 'js-exprs.ts', head: 'scaledFirstRow', args: [mat(2, 3, -1, 1), num(0.5, 1.5)], tags: ['js', 'shallow-slice', 'row-alias'] },
  { name: 'js-exprs/normalised_spread', file: 'js-exprs.ts', head: 'normalisedSpread', args: [vec(4, 0.2, 1), num(0.5, 1.5)], tags: ['js', 'mixed-tuple'] },
  { name: 'js-exprs/header_stepped', file: 'js-exprs.ts', head: 'headerStepped', args: [vec(4, -1, 1), num(0.5, 1.5)], tags: ['js', 'for-header-statements', 'continue'] },
  { name: 'js-exprs/normalised_energy', file: 'js-exprs.ts', head: 'normalisedEnergy', args: [vec(4, 0.2, 1), num(0.5, 1.5)], tags: ['js', 'mixed-tuple'] },
  { name: 'js-exprs/picked_components', file: 'js-exprs.ts', head: 'pickedComponents', args: [vec(3, -1, 1), vec(3, -1, 1), num(0.5, 1.5)], tags: ['js', 'literal-read'] },
  { name: 'js-exprs/regime_rate', file: 'js-exprs.ts', head: 'regimeRate', args: [vec(5, -1, 1), num(0.5, 1.5)], tags: ['js', 'switch-true', 'kink'] },
);
// ------------------------------------------------------------- custom-derivatives.ts
corpus.push(
  { name: 'custom-derivatives/mean_orbit_radius', file: 'custom-derivatives.ts', head: 'meanOrbitRadius', args: [vec(4, 0, 1), num(0.8, 1.5), num(0.1, 0.6), num(0.5, 2)], tags: ['js', 'custom-derivative', 'companion', 'implicit-function'] },
  { name: 'custom-derivatives/softmax_classifier_loss', file: 'custom-derivatives.ts', head: 'softmaxClassifierLoss', args: [mat(3, 4, -1, 1), vec(4, -1, 1), int(1)], tags: ['js', 'custom-derivative', 'directive', 'logsumexp'] },
  { name: 'custom-derivatives/hard_attention', file: 'custom-derivatives.ts', head: 'hardAttention', args: [vec(5, -1, 1), vec(5, -1, 1), num(0.5, 2)], tags: ['js', 'passive', 'argmax'] },
  { name: 'custom-derivatives/jittered_decay', file: 'custom-derivatives.ts', head: 'jitteredDecay', args: [vec(5, -1, 1), num(0.1, 1), num(0, 1)], wrt: ['w', 'lambda'], tags: ['js', 'passive', 'noise'] },
  { name: 'custom-derivatives/kernel_ridge_objective', file: 'custom-derivatives.ts', head: 'kernelRidgeObjective', args: [mat(3, 2, -1, 1), vec(3, -1, 1), num(0.1, 0.5)], tags: ['js', 'custom-derivative', 'companion', 'array-rule', 'in-loop'] },
  { name: 'custom-derivatives/mahalanobis_total', file: 'custom-derivatives.ts', head: 'mahalanobisTotal', args: [vec(9, 0.8, 1.5), mat(3, 3, -1, 1), vec(3, -0.5, 0.5)], tags: ['js', 'custom-derivative', 'companion', 'triangular-solve', 'in-loop'] },
  { name: 'custom-derivatives/damped_power_sweeps', file: 'custom-derivatives.ts', head: 'dampedPowerSweeps', args: [mat(3, 3, -1, 1), vec(3, 0.5, 1), int(3)], tags: ['js', 'custom-derivative', 'array-rule', 'argument-overwritten'] },
);
// ------------------------------------------------------------- closures.ts
corpus.push(
  { name: 'closures/damped_oscillator_rk4', file: 'closures.ts', head: 'dampedOscillatorEnd', args: [vec(2, -1, 1), num(0.5, 2), num(0.1, 0.5)], tags: ['js', 'closure', 'fn-arg', 'rk4'] },
  { name: 'closures/cubic_root_newton', file: 'closures.ts', head: 'cubicRoot', args: [num(1, 2), num(0.5, 1.5)], tags: ['js', 'fn-arg', 'arrow-literal', 'newton'] },
  { name: 'closures/annuity_rate_bisection', file: 'closures.ts', head: 'annuityRate', args: [num(9, 11), num(95, 105)], tags: ['js', 'closure', 'fn-arg', 'bisection'] },
  { name: 'closures/line_fit_sq_helper', file: 'closures.ts', head: 'lineFitLoss', args: [vec(2, -1, 1), vec(5, -1, 1), vec(5, -1, 1)], tags: ['js', 'nested', 'closure', 'local-helper'] },
  { name: 'closures/accumulated_energy', file: 'closures.ts', head: 'accumulatedEnergy', args: [vec(4, -1, 1), num(0.5, 2)], tags: ['js', 'nested', 'closure-writes', 'for-of'] },
  { name: 'closures/soft_bins', file: 'closures.ts', head: 'softBins', args: [vec(5, -1.5, 1.5), num(0.5, 1.5)], tags: ['js', 'nested-function', 'captured-array-write', 'forEach'] },
  { name: 'closures/decay_ode_hoisted', file: 'closures.ts', head: 'decayOde', args: [num(0.5, 2), num(0.2, 1)], tags: ['js', 'nested', 'nested-function', 'hoisted'] },
  { name: 'closures/weighted_gap', file: 'closures.ts', head: 'weightedGap', args: [vec(3, -1, 1), vec(3, -1, 1), vec(3, 0.5, 1)], tags: ['js', 'closure', 'early-return', 'arrays'] },
  { name: 'closures/penalised_mean', file: 'closures.ts', head: 'penalisedMean', args: [vec(4, -1, 1), num(-0.5, 0.5)], tags: ['js', 'nested', 'fn-arg', 'top-level-fn-arg', 'closure'] },
  { name: 'closures/smoothed_track', file: 'closures.ts', head: 'smoothedTrack', args: [vec(5, -1, 1), num(0.2, 0.8)], tags: ['js', 'closure-writes', 'two-variables'] },
  { name: 'closures/kernel_density', file: 'closures.ts', head: 'kernelDensity', args: [vec(5, -1, 1), num(-0.5, 0.5), num(0.5, 1.5)], tags: ['js', 'nested-closures'] },
  { name: 'closures/namespaced_euler', file: 'closures.ts', head: 'namespacedEuler', args: [vec(2, -1, 1), num(0.5, 2)], tags: ['js', 'namespace-object', 'fn-arg', 'destructured-local-param'] },
  { name: 'closures/pendulum_energy', file: 'closures.ts', head: 'pendulumEnergy', args: [num(0.2, 0.8), num(9, 10), num(0.5, 1.5)], tags: ['js', 'closure', 'fn-arg', 'destructured-local-param', 'rk4'] },
);
