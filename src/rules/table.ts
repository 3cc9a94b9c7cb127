// Derivative rules, one declarative entry per operator or intrinsic. Each partial derivative is a
// TypeScript expression over the argument names and `r`, the result. A new intrinsic is one entry.
// Values at non-differentiable points are chosen here once and followed by every mode.

export interface Rule {
  /** argument names used by the templates (for variadic rules: the name of each argument) */
  args: string[];
  /** ∂r/∂arg for each argument; '0' marks a non-differentiable argument (derivative zero) */
  partials: string[];
  /** any number of arguments, each with partial `partials[0]` over its own name `args[0]` */
  variadic?: boolean;
  /** documented choice at non-differentiable or singular points */
  note?: string;
}

export const RULES: Record<string, Rule> = {
  // ---- arithmetic ----
  '+': { args: ['a', 'b'], partials: ['1', '1'] },
  '-': { args: ['a', 'b'], partials: ['1', '-1'] },
  '*': { args: ['a', 'b'], partials: ['b', 'a'] },
  '/': { args: ['a', 'b'], partials: ['1 / b', '-r / b'] },
  '%': { args: ['a', 'b'], partials: ['1', '-Math.trunc(a / b)'], note: 'JavaScript remainder: r = a - trunc(a / b) * b; at the jumps the one-sided derivative of the piece containing a is used' },
  '**': { args: ['a', 'b'], partials: ['b === 0 ? 0 : b * a ** (b - 1)', 'a > 0 ? Math.log(a) * r : 0'], note: '∂/∂b at a ≤ 0 is 0 (the power is not differentiable in b there); ∂/∂a at b = 0 is 0' },
  'neg': { args: ['a'], partials: ['-1'] },
  'pos': { args: ['a'], partials: ['1'] },
  // ---- Math ----
  'Math.sin': { args: ['x'], partials: ['Math.cos(x)'] },
  'Math.cos': { args: ['x'], partials: ['-Math.sin(x)'] },
  'Math.tan': { args: ['x'], partials: ['1 + r * r'] },
  'Math.asin': { args: ['x'], partials: ['1 / Math.sqrt(1 - x * x)'], note: '±Infinity at x = ±1' },
  'Math.acos': { args: ['x'], partials: ['-1 / Math.sqrt(1 - x * x)'], note: '−Infinity at x = ±1' },
  'Math.atan': { args: ['x'], partials: ['1 / (1 + x * x)'] },
  'Math.atan2': { args: ['y', 'x'], partials: ['x / (x * x + y * y)', '-y / (x * x + y * y)'], note: 'NaN at the origin' },
  'Math.sinh': { args: ['x'], partials: ['Math.cosh(x)'] },
  'Math.cosh': { args: ['x'], partials: ['Math.sinh(x)'] },
  'Math.tanh': { args: ['x'], partials: ['1 - r * r'] },
  'Math.asinh': { args: ['x'], partials: ['1 / Math.sqrt(x * x + 1)'] },
  'Math.acosh': { args: ['x'], partials: ['1 / Math.sqrt(x * x - 1)'], note: 'Infinity at x = 1' },
  'Math.atanh': { args: ['x'], partials: ['1 / (1 - x * x)'], note: 'Infinity at x = ±1' },
  'Math.exp': { args: ['x'], partials: ['r'] },
  'Math.expm1': { args: ['x'], partials: ['r + 1'] },
  'Math.log': { args: ['x'], partials: ['1 / x'], note: 'Infinity at 0' },
  'Math.log1p': { args: ['x'], partials: ['1 / (1 + x)'] },
  'Math.log2': { args: ['x'], partials: ['1 / (x * Math.LN2)'] },
  'Math.log10': { args: ['x'], partials: ['1 / (x * Math.LN10)'] },
  'Math.sqrt': { args: ['x'], partials: ['0.5 / r'], note: 'Infinity at 0 (the one-sided limit), as in JAX and PyTorch' },
  'Math.cbrt': { args: ['x'], partials: ['1 / (3 * r * r)'], note: 'Infinity at 0' },
  'Math.pow': { args: ['x', 'y'], partials: ['y === 0 ? 0 : y * Math.pow(x, y - 1)', 'x > 0 ? Math.log(x) * r : 0'], note: 'as `**`' },
  'Math.abs': { args: ['x'], partials: ['Math.sign(x)'], note: '0 at x = 0 (a subgradient)' },
  'Math.hypot': { args: ['x'], partials: ['r === 0 ? 0 : x / r'], variadic: true, note: '0 at the origin' },
  'Math.min': { args: ['x', 'y'], partials: ['x <= y ? 1 : 0', 'x <= y ? 0 : 1'], note: 'ties go to the first argument: d min(a, a) = da' },
  'Math.max': { args: ['x', 'y'], partials: ['x >= y ? 1 : 0', 'x >= y ? 0 : 1'], note: 'ties go to the first argument: d max(a, a) = da' },
  'Math.fround': { args: ['x'], partials: ['1'], note: 'rounding to float32 is treated as the identity' },
  'Math.sign': { args: ['x'], partials: ['0'], note: 'piecewise constant: 0 everywhere, including at 0' },
  'Math.floor': { args: ['x'], partials: ['0'], note: 'piecewise constant: 0 everywhere, including at the jumps' },
  'Math.ceil': { args: ['x'], partials: ['0'], note: 'as floor' },
  'Math.round': { args: ['x'], partials: ['0'], note: 'as floor' },
  'Math.trunc': { args: ['x'], partials: ['0'], note: 'as floor' },
};

export function ruleFor(name: string): Rule | undefined {
  return Object.prototype.hasOwnProperty.call(RULES, name) ? RULES[name] : undefined;
}
