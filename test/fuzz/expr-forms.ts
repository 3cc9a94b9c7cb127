// Source-level census of the expression forms of issue 16 (items 3–4). They lower to the IR's ordinary
// statements (a hoisted `i++` is an `assign`, a destructuring swap a `decl` and two row stores), so
// the IR classifier of test/fuzz/coverage.ts cannot tell them apart from the statements written out:
// they are counted on the generated source instead, by spelling, and the programs that hold them must
// be accepted by the front end.

/** each form, with the spelling the generator writes it in */
export const EXPR_FORMS: Record<string, RegExp> = {
  // `buf[k++] = …`, `buf[--k]`
  'inc in an index': /\[[\w.]*(\+\+|--)\w*[^\]]*\]|\[(\+\+|--)\w+/,
  // `t++ * b`, `++t * b`
  'inc in arithmetic': /\w(\+\+|--) \*|[+*] (\+\+|--)\w/,
  // `(t = e) * t`, `(w[0] = e)`, `(u += t)`, `(k *= 2)`
  'assignment in an expression': /\((\w+|\w+\[\w+\]) [-+*]?= [^=]/,
  // `u = t = e`
  'chained assignment': /^\s*\w+ = \w+ = [^=]/m,
  // `for (let i = 0, j = n - 1; i < j; i++, j--)`, `for (i = 0, j = 2; …)`
  'comma in a for header': /for \([^;]*, [^;]*;[^;]*;[^)]*\+\+, \w+--\)/,
  // `(i = 1, j = 2, i * e + j)`
  'comma in an expression': /\(\w+ = [^,()]+, \w+ = /,
  // `while ((k *= 2) < 8)`, `while (++m < 2)`
  'assignment in a loop condition': /while \(\(\w+ \*= 2\)|while \(\+\+\w+ </,
  // `[a, b] = [b, 0.5 * a]`
  'destructuring swap of scalars': /^\s*\[\w+, \w+\] = \[/m,
  // `[M[i], M[2]] = [M[2], M[i]]`
  'destructuring swap of rows': /^\s*\[\w+\[[^\]]+\], \w+\[[^\]]+\]\] = \[/m,
  // `function dpar([x0, x1]: number[], { u, v = 2, w }: P)`
  'destructured parameters with defaults': /function \w+\(\[\w+, \w+\]: number\[\], \{ \w+, \w+ = /,
  // `const [d0, d1 = 0.5] = xs`
  'destructuring declaration with a default': /const \[\w+, \w+ = [^\]]+\] = /,
  // `Math.max(...xs)`, `Math.min(e, ...xs)`
  'spread in a Math call': /Math\.(max|min|hypot)\([^()]*\.\.\.\w+\)/,
  // `dtwo(...tp)`
  'spread of a tuple into a helper': /\bdtwo\(\.\.\.\w+\)/,
};

/** how many programs hold each form */
export function countExprForms(sources: string[]): Map<string, number> {
  const out = new Map<string, number>(Object.keys(EXPR_FORMS).map((k) => [k, 0]));
  for (const s of sources) for (const [k, re] of Object.entries(EXPR_FORMS)) if (re.test(s)) out.set(k, out.get(k)! + 1);
  return out;
}
