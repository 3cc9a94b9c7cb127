// A source compiled to JavaScript with no diagnostics and checked in every mode at a point
// (checkCompiled: divided differences, the dot-product test, an empty tape): its generated code.
import { expect } from 'vitest';
import { checkCompiled } from '../../src/api/check.js';
import { compile } from '../../src/api/compile.js';

export function checkedCode(src: string, head: string, args: unknown[]): string {
  const r = compile(src, { head, js: true, runtimeImport: null });
  expect(r.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message)).toEqual([]);
  const rep = checkCompiled(r, r.code, head, args);
  expect(rep.messages).toEqual([]);
  expect(rep.ok).toBe(true);
  return r.code;
}
