// Namespace objects in the runtime API's `scope` (numeric.js / gl-matrix style): `scope: { vec }` with
// `vec = { dot(a, b) { … }, add: (out, a, b) => … }` and the function calling `vec.dot(x, y)`.
//
// The compiled module declares each member as a helper of its own, `vec_dot` (the name the front end
// gives a member of a namespace object written in TypeScript, src/frontend/namespaces.ts), and the
// sources call it by that name: `vec.dot(…)` and, inside a member, `this.dot(…)` are rewritten to
// `vec_dot(…)` before anything reads them. Every other use of the object (passed, stored, a member read
// without a call) is refused here, by name, with what to write instead: the object itself is not in
// the module, so the front end could only say that it does not know the name.
import ts from 'typescript';
import { readFunction } from './source.js';

type Fn = (...args: never[]) => unknown;

/** a plain object whose own values are all functions (not classes): a namespace */
export function isNamespace(v: unknown): v is Record<string, Fn> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return false;
  const values = Object.values(v);
  return values.length > 0 && values.every((x) => typeof x === 'function' && !/^class\b/.test(Function.prototype.toString.call(x)));
}

/** a plain object holding some functions and some data: refused with its own message */
function mixesFunctions(v: unknown): boolean {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const values = Object.values(v);
  return values.some((x) => typeof x === 'function') && !values.every((x) => typeof x === 'function');
}

/** a stand-in function whose source is `text` (the runtime API reads helpers by their `toString`) */
function withSource(text: string): Fn {
  const f = () => undefined;
  Object.defineProperty(f, 'toString', { value: () => text });
  return f;
}

/**
 * `text` (a function's source) with `ns.m(…)` calls, and `this.m(…)` when `self` names the namespace
 * the function is a member of, rewritten to `ns_m(…)`; throws where a namespace is used otherwise.
 */
function rewrite(text: string, namespaces: ReadonlyMap<string, ReadonlySet<string>>, self: string | null, where: string): string {
  const fn = readFunction(text);
  const edits: { at: number; end: number; by: string }[] = [];
  // (readFunction parsed `(${fn.text})`: positions are one past the text's)
  const visit = (n: ts.Node): void => {
    if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression)) {
      const recv = n.expression.expression;
      const ns = ts.isIdentifier(recv) && namespaces.has(recv.text) ? recv.text : recv.kind === ts.SyntaxKind.ThisKeyword && self && ownThis(recv) ? self : null;
      if (ns && namespaces.get(ns)!.has(n.expression.name.text)) {
        edits.push({ at: n.expression.getStart() - 1, end: n.expression.end - 1, by: `${ns}_${n.expression.name.text}` });
        n.arguments.forEach(visit);
        return;
      }
    }
    if (ts.isIdentifier(n) && namespaces.has(n.text) && isReference(n)) {
      const p = n.parent;
      const shown = ts.isPropertyAccessExpression(p) ? p.getText() : n.text;
      const members = [...namespaces.get(n.text)!];
      if (ts.isPropertyAccessExpression(p) && !members.includes(p.name.text))
        throw new Error(`tsad: ${where} reads '${p.name.text}' of the scope entry '${n.text}', an object of functions, which has no such function (it has ${members.join(', ')})`);
      throw new Error(
        `tsad: ${where} uses the scope entry '${n.text}', an object of functions, as a value (\`${shown}\`): the runtime API calls its functions (\`${n.text}.${members[0]}(…)\`), it does not pass, store or read the object or its members; ` +
          `call its functions where you need them, or give a function you hand to a helper a scope entry of its own (\`scope: { ${members[0]}: ${n.text}.${members[0]} }\`)`,
      );
    }
    n.forEachChild(visit);
  };
  // `this` of the member itself, not of a function nested in it (an arrow's `this` is its enclosing function's)
  const ownThis = (n: ts.Node): boolean => {
    for (let p = n.parent; p; p = p.parent) if (ts.isFunctionLike(p) && !ts.isArrowFunction(p)) return p === fn.node;
    return false;
  };
  visit(fn.node);
  let out = fn.text;
  for (const e of edits.sort((a, b) => b.at - a.at)) out = out.slice(0, e.at) + e.by + out.slice(e.end);
  return out;
}

/** whether a source names one of the namespaces at all (a function that does not is left as it is) */
const mentionsAny = (text: string, namespaces: ReadonlyMap<string, unknown>) => [...namespaces.keys()].some((n) => new RegExp(`(^|[^\\w$])${n.replace(/\$/g, '\\$')}(?![\\w$])`).test(text));

/** Is this identifier a reference to a variable (not a property name, a declaration's name or a key)? */
function isReference(id: ts.Identifier): boolean {
  const p = id.parent;
  if (ts.isPropertyAccessExpression(p) && p.name === id) return false;
  if ((ts.isPropertyAssignment(p) || ts.isMethodDeclaration(p) || ts.isPropertySignature(p)) && p.name === id) return false;
  if ((ts.isVariableDeclaration(p) || ts.isParameter(p) || ts.isFunctionDeclaration(p) || ts.isFunctionExpression(p) || ts.isBindingElement(p)) && p.name === id) return false;
  return true;
}

/**
 * The scope with each namespace object replaced by its members (`vec_dot`, …) and every function's
 * source rewritten to call them so, and the head's source rewritten too. A scope without namespaces
 * is returned as it is.
 */
export function flattenNamespaces(scope: Record<string, unknown>, head: string): { scope: Record<string, unknown>; head: string } {
  // (called on every call of a derivative: the rewritten sources are kept per scope object and head,
  // while the scope holds the same values and its namespaces the same functions)
  const perScope = flattened.get(scope) ?? new Map<string, Flattened>();
  flattened.set(scope, perScope);
  const seen = snapshot(scope);
  const hit = perScope.get(head);
  if (hit && hit.seen.length === seen.length && hit.seen.every((v, i) => v === seen[i])) return hit;
  const r = { ...flattenUncached(scope, head), seen };
  perScope.set(head, r);
  return r;
}

type Flattened = { scope: Record<string, unknown>; head: string; seen: unknown[] };
const flattened = new WeakMap<object, Map<string, Flattened>>();

/** what the flattening read: each entry's name and value, and a namespace's members */
function snapshot(scope: Record<string, unknown>): unknown[] {
  return Object.entries(scope).flatMap(([k, v]) => [k, v, ...(isNamespace(v) ? Object.entries(v).flat() : [])]);
}

function flattenUncached(scope: Record<string, unknown>, head: string): { scope: Record<string, unknown>; head: string } {
  for (const [k, v] of Object.entries(scope))
    if (mixesFunctions(v)) {
      const data = Object.keys(v as object).filter((m) => typeof (v as Record<string, unknown>)[m] !== 'function');
      throw new Error(`tsad: scope entry '${k}' mixes functions and data ('${data[0]}'): the runtime API takes an object of functions as a namespace (\`${k}.f(…)\` calls), and data as a scope entry of its own; pass the data separately (\`scope: { ${k}, ${data[0]}: ${k}.${data[0]} }\` with the object's functions reading it by that name)`);
    }
  const namespaces = new Map<string, Set<string>>();
  for (const [k, v] of Object.entries(scope)) if (isNamespace(v)) namespaces.set(k, new Set(Object.keys(v).filter((m) => /^[A-Za-z_$][\w$]*$/.test(m))));
  if (!namespaces.size) return { scope, head };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(scope)) {
    if (namespaces.has(k)) {
      for (const m of namespaces.get(k)!) out[`${k}_${m}`] = withSource(rewrite(String((v as Record<string, Fn>)[m]), namespaces, k, `'${k}.${m}'`));
    } else if (typeof v === 'function' && !/^class\b/.test(Function.prototype.toString.call(v)) && mentionsAny(String(v), namespaces)) {
      out[k] = withSource(rewrite(String(v), namespaces, null, `the helper '${k}'`));
    } else out[k] = v;
  }
  return { scope: out, head: mentionsAny(head, namespaces) ? rewrite(head, namespaces, null, 'the function') : head };
}
