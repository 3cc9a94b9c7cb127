// Optional chaining: `o?.f`, `o?.[i]`, `o?.f.g`, `o?.a?.b` (and the same on arrays: `xs?.length`).
// JavaScript evaluates the chain up to a `?.`, and where the value there is null or undefined the whole
// chain is undefined without evaluating the rest. tsad writes it as the conditional it is:
//   `o?.f.g`  →  `o !== undefined ? o.f.g : undefined`
// the object read once (a variable or a field chain, or a temporary holding anything else), the rest
// of the chain read where the test has narrowed it. The value is nullable (`number | undefined`),
// used as tsad's other nullable values are: through `??`, a test, or a default. A call in the chain
// (`o?.m()`, `f?.(x)`) is refused: write the test.
import ts from 'typescript';
import type { Expr, Loc, Stmt, Ty } from '../ir/types.js';
import { tyOf } from '../ir/util.js';
import { isPlainRead, present } from './nullable.js';

/** What the lowering of a function lends this module. */
export interface OptionalChainHost {
  expr(e: ts.Expression): Expr | null;
  err(node: ts.Node, msg: string, hint?: string): null;
  typeAt(node: ts.Node): Ty | null;
  fresh(base: string): string;
  emit(st: Stmt): void;
  locOf(n: ts.Node): Loc;
  /** while `f` runs, the lowering of `node` is `value` (the object of a `?.`, read once and narrowed) */
  withObject<T>(node: ts.Node, value: Expr, f: () => T): T;
}

type Link = ts.PropertyAccessExpression | ts.ElementAccessExpression | ts.CallExpression | ts.NonNullExpression;

/** the outermost node of an optional chain: the one whose value is the chain's (undefined if it is not one) */
export function isChainEnd(e: ts.Expression): boolean {
  if (!ts.isOptionalChain(e)) return false;
  const p = e.parent;
  // (`a?.b.c`: the access `.c` continues the chain `a?.b`; parentheses end it)
  return !(ts.isOptionalChain(p) && (p as Link).expression === e) && !(ts.isNonNullExpression(p) && ts.isOptionalChain(p) && p.expression === e);
}

/**
 * The value of the chain ending at `end`: the conditional over each `?.` (innermost first), null
 * after a diagnostic.
 */
export function optionalChain(h: OptionalChainHost, end: ts.Expression): Expr | null {
  // the links of the chain, from its root outwards
  const links: Link[] = [];
  for (let n: ts.Expression = end; ts.isOptionalChain(n); n = (n as Link).expression) links.unshift(n as Link);
  for (const l of links) {
    if (ts.isCallExpression(l))
      return h.err(l, 'a call in an optional chain (`o?.m()`, `f?.(x)`) is not supported', `test the value first, and call it where it is present: \`${l.getText().replace(/\?\.\(?/g, (m) => (m === '?.(' ? '(' : '.'))}\``);
  }
  const tests: Expr[] = [];
  // each `?.` in turn: its object lowered (the earlier ones standing for their narrowed reads)
  const lowerFrom = (k: number): Expr | null => {
    if (k === links.length) return h.expr(end);
    const l = links[k];
    if (!(ts.isPropertyAccessExpression(l) || ts.isElementAccessExpression(l)) || !l.questionDotToken) return lowerFrom(k + 1);
    const o = h.expr(l.expression);
    if (!o) return null;
    const ot = tyOf(o);
    if (ot.k !== 'opt') {
      // (a variable or field its type says is present: `?.` reads it as `.` does)
      if (isPlainRead(o)) return h.withObject(l.expression, o, () => lowerFrom(k + 1));
      // (an element read past the end is undefined, which `?.` skips and its type does not say)
      return h.err(l.expression, `\`?.\` after \`${l.expression.getText()}\`, which TypeScript types as always present, is not supported (an element read past the end is undefined)`, 'test the index first: `i < xs.length ? xs[i].f : undefined`');
    }
    if (ot.none.includes('false'))
      return h.err(l.expression, `'${l.expression.getText()}' may be false, which \`?.\` does not skip`, `test it first: \`${l.expression.getText()} ? ${l.getText().replace('?.', '.')} : undefined\``);
    let read = o;
    if (!isPlainRead(o)) {
      // the object is read once: a temporary, where the chain starts (read unconditionally, as JavaScript does)
      if (tests.length) return h.err(l.expression, `\`?.\` after a value that is not a variable or a field is not supported inside a chain`, 'name the value first: `const v = …;` then `v?.f`');
      const name = h.fresh('chained');
      h.emit({ k: 'decl', name, ty: ot, init: o, konst: true, loc: h.locOf(l.expression) });
      read = { k: 'var', name, ty: ot };
    }
    tests.push(present(read, ot.none));
    const narrowed: Expr = { ...(read as Extract<Expr, { k: 'var' } | { k: 'field' }>), ty: ot.base, nn: true };
    return h.withObject(l.expression, narrowed, () => lowerFrom(k + 1));
  };
  const value = lowerFrom(0);
  if (!value) return null;
  if (!tests.length) return value;
  const ty = h.typeAt(end);
  if (!ty || ty.k !== 'opt') return h.err(end, `the value of \`${end.getText()}\` has a type tsad cannot follow`, 'test the object first and read the field in the branch where it is present');
  const c = tests.reduce((a, b) => ({ k: 'bin', op: '&&', a, b, ty: { k: 'bool' } }));
  return { k: 'cond', c, a: value, b: { k: 'undef' }, ty };
}
