// Parameter types for the named local functions of plain JavaScript that are passed to a helper
// (`const rhs = (t, y) => [y[1], -k * y[0]]; integrate(rhs, y0, h, n)`). Written at the call, such a
// function takes its parameter types from the helper's; named, it does not, and while its parameters are
// `any` its result is too (`[y[1], …]` is `any[]`), so the helper's parameter cannot be typed either.
// infer.ts learns the types the helper calls it with; here they are written into the module text, and
// the strict front end checks them against those calls again.
import ts from 'typescript';

/** the key of a local function: the top-level declaration it is in, and its own name */
export const localKey = (top: string, name: string) => `${top}/${name}`;

type Fn = ts.ArrowFunction | ts.FunctionExpression | ts.FunctionDeclaration;

/** The named local function `fn` is, as `[top, name]`, or null for one written where it is passed or a top-level one. */
export function localName(fn: Fn): [string, string] | null {
  let name: string | null = null;
  if (ts.isFunctionDeclaration(fn)) name = fn.name?.text ?? null;
  else if (ts.isVariableDeclaration(fn.parent) && ts.isIdentifier(fn.parent.name)) name = fn.parent.name.text;
  if (!name) return null;
  let top: ts.Node = fn;
  while (top.parent && !ts.isSourceFile(top.parent)) top = top.parent;
  if (top === fn.parent?.parent?.parent) return null; // itself a top-level declaration (the head or a helper)
  const d = ts.isVariableStatement(top) ? top.declarationList.declarations[0] : null;
  return d && ts.isIdentifier(d.name) ? [d.name.text, name] : null;
}

/** The module text with the parameters of the listed local functions annotated (those without a type). */
export function annotateLocalFunctions(text: string, locals: ReadonlyMap<string, readonly string[]>): string {
  if (!locals.size) return text;
  const sf = ts.createSourceFile('m.ts', text, ts.ScriptTarget.ES2020, true);
  const edits: { from: number; to: number; text: string }[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isArrowFunction(n) || ts.isFunctionExpression(n) || ts.isFunctionDeclaration(n)) {
      const at = localName(n);
      const types = at && locals.get(localKey(...at));
      if (types) {
        // `y => …` takes an annotation only inside parentheses
        const bare = ts.isArrowFunction(n) && n.parameters.length === 1 && !text.slice(n.getStart(sf), n.parameters[0].getStart(sf)).includes('(');
        n.parameters.forEach((p, i) => {
          if (p.type || !types[i]) return;
          // (a destructured parameter, `(t, [x, v]) => …`, takes the annotation after its pattern)
          if (bare && ts.isIdentifier(p.name)) edits.push({ from: p.getStart(sf), to: p.end, text: `(${p.name.text}: ${types[i]})` });
          else edits.push({ from: p.name.end, to: p.name.end, text: `: ${types[i]}` });
        });
      }
    }
    n.forEachChild(visit);
  };
  visit(sf);
  let out = text;
  for (const e of edits.sort((a, b) => b.from - a.from)) out = out.slice(0, e.from) + e.text + out.slice(e.to);
  return out;
}
