// The JavaScript people write (issue 16): `var` with its function scope and hoisting, code that tsc accepts
// without --strict, and one error per problem (no cascade after a refused declaration).
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { checkCompiled } from '../src/api/check.js';
import { compile } from '../src/api/compile.js';
import { loadGenerated } from '../src/api/load.js';
import { formatDiagnostic, type Diagnostic } from '../src/frontend/diagnostics.js';

const show = (ds: Diagnostic[]) => ds.map(formatDiagnostic).join('\n\n') || '(no diagnostics)';
const errorsOf = (src: string, head = 'f') => compile({ 'input.ts': src }, { head }).diagnostics.filter((d) => d.severity === 'error');

/** the source run as plain JavaScript: the reference for the generated primal */
function reference(src: string, head: string): (...a: unknown[]) => unknown {
  const js = ts.transpileModule(src, { compilerOptions: { target: ts.ScriptTarget.ES2020, module: ts.ModuleKind.ESNext } }).outputText;
  return new Function(`${js.replace(/^export /gm, '')}\nreturn ${head};`)() as (...a: unknown[]) => unknown;
}

/** compiles `src`, checks every mode at `args`, and the primal against the source run as JavaScript */
function expectDifferentiates(src: string, head: string, args: unknown[]): void {
  const r = compile({ 'input.ts': src }, { head, js: true, runtimeImport: null });
  expect(show(r.diagnostics)).toBe('(no diagnostics)');
  const mod = loadGenerated(r.code);
  expect(mod[head](...structuredClone(args))).toBe(reference(src, head)(...structuredClone(args)));
  const rep = checkCompiled(r, r.code, head, args, { seed: 5 });
  expect(rep.messages).toEqual([]);
  expect(rep.tapeEmpty).toBe(true);
}

describe('`var`: one binding per function, hoisted', () => {
  it('a `var` declared in a loop body without a value keeps the previous pass\'s value', () => {
    const src = `export function f(xs: number[], a: number): number {
  var s = 0;
  y = xs[0];
  for (var i = 0; i < xs.length; i++) {
    var y;
    if (i % 2 === 0) y = y * a + xs[i];
    s += y * y;
  }
  return s;
}
`;
    expectDifferentiates(src, 'f', [[0.3, -0.7, 1.1, 0.4], 0.8]);
  });

  it('`var i` in two loops is one variable, read after the loops', () => {
    const src = `export function f(xs: number[]): number {
  var s = 0;
  for (var i = 0; i < xs.length; i++) s += xs[i];
  for (var i = 1; i < xs.length; i++) s *= xs[i - 1] + i;
  return s * i;
}
`;
    expectDifferentiates(src, 'f', [[0.3, -0.7, 1.1]]);
  });

  it('a loop temporary re-declared with a value carries to the next pass where it is read first', () => {
    const src = `export function f(xs: number[]): number {
  var acc = 0, prev = xs[0];
  for (var k = 1; k < xs.length; k++) {
    acc += Math.sin(xs[k] - prev);
    var prev = xs[k] * 2;
  }
  return acc + prev;
}
`;
    expectDifferentiates(src, 'f', [[0.3, -0.7, 1.1, 0.2]]);
  });

  it('`var` without a value assigned on every path (if/else, switch with default) before its use', () => {
    const src = `export function f(x: number, k: 'flat' | 'wave' | 'two'): number {
  var w, c;
  if (x > 0) w = x * x; else w = -x;
  switch (k) {
    case 'flat': c = 1; break;
    case 'wave': c = Math.cos(x); break;
    default: c = 2;
  }
  return w * c;
}
`;
    expectDifferentiates(src, 'f', [0.7, 'wave']);
    expectDifferentiates(src, 'f', [-0.7, 'two']);
  });

  it('a `var` used before its declaration in the text, assigned first (hoisting)', () => {
    const src = `export function f(x: number): number {
  t = x * 3;
  var r = t + 1;
  var t;
  return r * t;
}
`;
    expectDifferentiates(src, 'f', [0.4]);
  });

  it('a `var` in a nested block, read after the block', () => {
    const src = `export function f(x: number): number {
  if (x > 0) {
    var y = Math.exp(x);
  } else {
    y = x;
  }
  return y * x;
}
`;
    expectDifferentiates(src, 'f', [0.4]);
    expectDifferentiates(src, 'f', [-0.4]);
  });

  it('a destructuring `var` used only after it in its block is lowered in place', () => {
    expectDifferentiates(`export function f(x: number): number {\n  var [a, b] = [x, 2 * x];\n  return a * b + Math.sin(a);\n}\n`, 'f', [0.3]);
  });

  it('a destructuring `var` read after its block: one error for the declaration, none for the uses', () => {
    const errs = errorsOf(`export function f(x: number): number {\n  if (x > 0) {\n    var [a, b] = [x, 2 * x];\n  }\n  return a * b + a + b;\n}\n`);
    expect(errs.length, show(errs)).toBe(1);
    expect(`${errs[0].line}:${errs[0].col}`).toBe('3:9');
    expect(errs[0].hint).toMatch(/declare the names with `let` before the block/);
  });

  it('`var j;` up front and `for (var j = 0; …)` later (TypeScript types the first `any`): one number variable', () => {
    const src = `export function f(xs: number[]): number {
  var m, j;
  m = xs[0];
  for (j = 1; j < xs.length; j++) if (xs[j] > m) m = xs[j];
  var s = 0;
  for (var j = 0; j < xs.length; j++) s += Math.exp(xs[j] - m);
  return m + Math.log(s);
}
`;
    expectDifferentiates(src, 'f', [[0.1, 0.5, -0.3]]);
  });

  it('a bare `var` given values of two types: one error, from tsad', () => {
    const errs = errorsOf(`export function f(x: number): number {\n  var j;\n  j = x;\n  var j = [x];\n  return x;\n}\n`);
    expect(errs.length, show(errs)).toBe(1);
    expect(errs[0].message).toMatch(/values of different types/);
  });

  it('a module-level `var` never assigned is read as a constant', () => {
    const src = `var SCALE = 2.5;\nexport function f(x: number): number {\n  return SCALE * x * x;\n}\n`;
    expectDifferentiates(src, 'f', [0.4]);
  });

  it('a module-level `var` assigned somewhere stays refused', () => {
    const src = `var k = 2;\nfunction bump(): void { k = k + 1; }\nexport function f(x: number): number {\n  return k * x;\n}\n`;
    const errs = errorsOf(src);
    expect(errs.map((d) => `${d.line}:${d.col}`)).toEqual(['1:5']);
    expect(errs[0].message).toMatch(/module-level mutable state/);
  });
});

describe('`var` read before it is assigned: refused at the read', () => {
  const cases: { name: string; body: string[]; line: number; col: number; name2: string }[] = [
    { name: 'assigned on one branch only', body: ['var y;', 'if (x > 0) y = x;', 'return y * 2;'], line: 4, col: 10, name2: 'y' },
    { name: 'accumulated without a start value', body: ['var s;', 'for (var i = 0; i < 3; i++) s += x * i;', 'return s;'], line: 3, col: 31, name2: 's' },
    { name: 'assigned only inside a loop, read after it', body: ['for (var i = 0; i < x; i++) { var t = x * i; }', 'return t;'], line: 3, col: 10, name2: 't' },
    { name: 'read before the declaration that assigns it', body: ['var r = t + 1;', 'var t = x;', 'return r;'], line: 2, col: 11, name2: 't' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const src = `export function f(x: number): number {\n${c.body.map((l) => '  ' + l).join('\n')}\n}\n`;
      const errs = errorsOf(src);
      expect(errs.length, show(errs)).toBe(1);
      expect(`${errs[0].line}:${errs[0].col}`).toBe(`${c.line}:${c.col}`);
      expect(errs[0].message).toMatch(new RegExp(`'${c.name2}' may be read before it is assigned`));
      expect(errs[0].hint).toMatch(/assign .* on every path before this read/);
    });
  }
});

it('a `var` read in its own initializer: TypeScript cannot type it; one error, at the declaration', () => {
  const errs = errorsOf(`export function f(x: number): number {\n  var y = y + x;\n  return y;\n}\n`);
  expect(errs.length, show(errs)).toBe(1);
  expect(`${errs[0].line}:${errs[0].col}`).toBe('2:7');
  expect(errs[0].hint).toMatch(/var y: number/);
});

it('a `let` read before it is assigned: TypeScript\'s analysis (exact on exhaustive switches), one located error', () => {
  const errs = errorsOf(`export function f(x: number): number {\n  let y: number;\n  if (x > 0) y = x;\n  return y;\n}\n`);
  expect(errs.length, show(errs)).toBe(1);
  expect(`${errs[0].line}:${errs[0].col}`).toBe('4:10');
  expect(errs[0].message).toMatch(/'y' is used before being assigned.*undefined or null cannot flow here/);
  expect(errs[0].hint).toMatch(/give it a number on every path/);
  const ok = errorsOf(`export function f(x: number, k: 'a' | 'b'): number {\n  let y: number;\n  switch (k) {\n    case 'a': y = x; break;\n    case 'b': y = 2 * x; break;\n  }\n  return y;\n}\n`);
  expect(show(ok)).toBe('(no diagnostics)');
});

describe('code tsc accepts without --strict is not refused for type reasons', () => {
  it('an auto-typed `var` and an inferred return type', () => {
    expectDifferentiates(`export function f(x: number) {\n  var r;\n  r = x * 2;\n  return r * r;\n}\n`, 'f', [0.3]);
  });

  it('an unannotated parameter: tsad says to annotate it (one error, at the parameter)', () => {
    const errs = errorsOf(`export function f(x) {\n  return x * x;\n}\n`);
    expect(errs.length, show(errs)).toBe(1);
    expect(`${errs[0].line}:${errs[0].col}`).toBe('1:19');
    expect(errs[0].message).toMatch(/parameter 'x' has no type/);
    expect(errs[0].hint).toMatch(/annotate it, e\.g\. `\(x: number\)`/);
  });

  it('a Partial<…> field read: tsad refuses its type, not TypeScript', () => {
    const src = `interface P { a: number; b: number }\nexport function f(x: number, p: Partial<P>): number {\n  return x * p.a;\n}\n`;
    const errs = errorsOf(src);
    expect(errs.length, show(errs)).toBeGreaterThanOrEqual(1);
    expect(errs.every((d) => !/TypeScript type error/.test(d.hint ?? '')), show(errs)).toBe(true);
    expect(errs[0].message).toMatch(/has type/);
  });

  it('a type error tsc reports without --strict is still reported as one', () => {
    const errs = errorsOf(`export function f(x: number): number {\n  const s: string = x;\n  return x;\n}\n`);
    expect(errs.length, show(errs)).toBe(1);
    expect(errs[0].hint).toMatch(/TypeScript type error/);
  });

  it('`undefined` given where a number is declared (accepted by tsc without --strict) is refused, located', () => {
    const errs = errorsOf(`export function f(x: number): number {\n  var y: number = undefined;\n  return x * y;\n}\n`);
    expect(errs.length, show(errs)).toBe(1);
    expect(`${errs[0].line}:${errs[0].col}`).toBe('2:7');
    expect(errs[0].message).toMatch(/undefined or null cannot flow here/);
  });
});

describe('one problem, one error', () => {
  // a 4×4 cofactor expansion whose determinant comes from a refused call: every later use stays silent
  const uses = Array.from({ length: 16 }, (_, k) => `  out[${k}] = (m[${k}] * m[${(k + 5) % 16}] - m[${(k + 3) % 16}]) * det;`).join('\n');
  const body = (decl: string) => `export function f(m: number[]): number[] {\n  ${decl}\n  var out = new Array(16).fill(0) as number[];\n${uses}\n  return out;\n}\n`;

  it('a refused initializer (`var det = Math.random()`) gives one error for 16 uses', () => {
    const errs = errorsOf(body('var det = Math.random() + m[0];'));
    expect(errs.length, show(errs)).toBe(1);
    expect(errs[0].line).toBe(2);
    expect(errs[0].hint?.trim()).toBeTruthy();
  });

  it('a declaration of an unsupported type gives one error for 16 uses', () => {
    const errs = errorsOf(body("const det = [m[0], 'k'];").replaceAll(' * det', ' * (det[0] as number)'));
    expect(errs.length, show(errs)).toBe(1);
    expect(errs[0].line).toBe(2);
    expect(errs[0].message).toMatch(/has type/);
  });

  it('a refused parameter gives one error however often it is used', () => {
    const errs = errorsOf(`export function f(x: number, s: number | string): number {\n  return x * (s as number) + (s as number) * (s as number) + x;\n}\n`);
    expect(errs.length, show(errs)).toBe(1);
    expect(`${errs[0].line}:${errs[0].col}`).toBe('1:30');
  });
});
