// JavaScript typed by JSDoc comments where TypeScript has syntax of its own (src/frontend/jsdoc.ts):
// an optional parameter `@param {T} [p]` (TypeScript's `p?: T`) and a cast to a type without null or
// undefined, `/** @type {number} */ (e)` (TypeScript's `e!`). Found by the fuzzer's jsdoc property,
// which compiles each random program rewritten this way (test/fuzz/jsdoc.ts).
import { describe, expect, it } from 'vitest';
import { compile } from '../src/api/compile.js';
import { checkCompiled } from '../src/api/check.js';
import { loadGenerated } from '../src/api/load.js';

/** compiles a .js module, expects no error, checks the head's derivatives at `args` */
function checked(src: string, head: string, args: unknown[]): void {
  const r = compile({ 'f.js': src }, { head, js: true, runtimeImport: null });
  expect(r.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.line}:${d.col} ${d.message}`)).toEqual([]);
  const rep = checkCompiled(r, loadGenerated(r.code, r.runtimeNames), head, args);
  expect(rep.ok, rep.messages.join('; ')).toBe(true);
}

describe('JSDoc spellings of TypeScript syntax', () => {
  it('`@param {boolean} [on]`: an optional parameter, left out at a call', () => {
    checked(
      `/**
 * @param {number} x
 * @param {boolean} [on]
 * @returns {number}
 */
function scaledIf(x, on) {
  return on ? 2 * x : Math.sin(x);
}

/** @param {number} x @returns {number} */
export function f(x) {
  return scaledIf(x) + scaledIf(x * x, true);
}
`,
      'f',
      [0.7],
    );
  });

  it('`/** @type {number} */ (st.pop())`: a value asserted present, as `st.pop()!`', () => {
    checked(
      `/** @param {number[]} a @returns {number} */
export function f(a) {
  /** @type {number[]} */
  const st = [];
  for (const v of a) st.push(Math.tanh(v));
  const top = /** @type {number} */ (st.pop());
  return top * /** @type {number} */ (st.pop());
}
`,
      'f',
      [[0.5, -1.25, 2]],
    );
  });

  it('`/** @type {number} */ (m.u) *= …`: an optional field updated asserted present, as `m.u! *= …`', () => {
    checked(
      `/** @type {{ u?: number }} */
const DEFAULTS = { u: 0.5 };

/** @param {number[]} x @param {{ u?: number }} o @returns {number} */
export function f(x, o) {
  const m = { ...DEFAULTS, ...o };
  if (m.u !== undefined) /** @type {number} */ (m.u) *= 1 + 0.25 * x[0];
  return (m.u ?? 0) * x[1];
}
`,
      'f',
      [[0.5, -1.25], { u: 1.5 }],
    );
  });

  it('a cast that keeps undefined asserts nothing: still refused, located', () => {
    const r = compile({ 'f.js': `/** @param {number[]} a @returns {number} */\nexport function f(a) {\n  return 2 * /** @type {number | undefined} */ (a.pop());\n}\n` }, { head: 'f', js: true, runtimeImport: null });
    expect(r.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.line}:${d.col}`)).toEqual(['3:48']);
  });
});
