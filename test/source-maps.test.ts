// Source maps of generated code (compile(src, { sourceMap: true })): statement-level, each generated
// statement's line maps to the source statement it comes from, derivative statements to the primal
// statement they differentiate; read back with @jridgewell/trace-mapping, as a debugger would.
import { originalPositionFor, TraceMap } from '@jridgewell/trace-mapping';
import { describe, expect, it } from 'vitest';
import { compile } from '../src/index.js';

const MODEL = `export function loss(x: number[], w: number): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    s += x[i] * x[i];
  }
  const t = Math.sin(w * s);
  return t * t;
}
`;
const UTIL = `export function sq(v: number): number {
  return v * v;
}
`;

/** the source line of the first generated line matching `re` inside function `fn` */
function sourceLine(code: string, map: TraceMap, fn: string, re: RegExp): { source: string | null; line: number | null; text: string } {
  const lines = code.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`export function ${fn}(`));
  expect(start, `function ${fn} in the generated code`).toBeGreaterThanOrEqual(0);
  const k = lines.findIndex((l, i) => i > start && re.test(l));
  expect(k, `${re} in ${fn}`).toBeGreaterThan(start);
  const o = originalPositionFor(map, { line: k + 1, column: lines[k].length - lines[k].trimStart().length });
  return { source: o.source, line: o.line, text: lines[k].trim() };
}

describe('source maps', () => {
  const r = compile({ 'model.ts': MODEL }, { head: 'loss', modes: ['tangent', 'reverse'], sourceMap: true });
  const map = new TraceMap(r.map as ConstructorParameters<typeof TraceMap>[0]);

  it('is a v3 map with the source files and their text', () => {
    expect(r.diagnostics).toEqual([]);
    expect(r.map!.version).toBe(3);
    expect(r.map!.sources).toEqual(['model.ts']);
    expect(r.map!.sourcesContent).toEqual([MODEL]);
  });

  it("maps the adjoint's backward-sweep statement of `s += x[i] * x[i]` to its line", () => {
    expect(sourceLine(r.code, map, 'loss_bwd', /xb\[i\] \+= /)).toEqual({ source: 'model.ts', line: 4, text: 'xb[i] += 2 * x[i] * sb;' });
    // the adjoint of `const t = Math.sin(w * s)`, and the reversed loop's header
    expect(sourceLine(r.code, map, 'loss_bwd', /^\s*sb \+= /).line).toBe(6);
    expect(sourceLine(r.code, map, 'loss_bwd', /^\s*for \(/).line).toBe(3);
    // the forward sweep's copy of the primal statement
    expect(sourceLine(r.code, map, 'loss_fwd', /s \+= x\[i\] \* x\[i\]/).line).toBe(4);
  });

  it("maps the tangent's statements to the primal statements they differentiate", () => {
    expect(sourceLine(r.code, map, 'loss_d', /^\s*sd = /).line).toBe(4);
    expect(sourceLine(r.code, map, 'loss_d', /^\s*const td = /).line).toBe(6);
    expect(sourceLine(r.code, map, 'loss_d', /^\s*return /).line).toBe(7);
  });

  it('maps each file of a several-file input to its own source', () => {
    const main = `import { sq } from './util.ts';\nexport function f(x: number): number {\n  const y = sq(x);\n  return y + x;\n}\n`;
    const m = compile({ 'main.ts': main, 'util.ts': UTIL }, { head: 'f', modes: ['reverse'], sourceMap: true });
    expect(m.diagnostics).toEqual([]);
    const tm = new TraceMap(m.map as ConstructorParameters<typeof TraceMap>[0]);
    expect([...m.map!.sources].sort()).toEqual(['main.ts', 'util.ts']);
    const helper = sourceLine(m.code, tm, 'sq', /return /);
    expect([helper.source, helper.line]).toEqual(['util.ts', 2]);
  });

  it('leaves the code unchanged and adds no map without the option', () => {
    const plain = compile({ 'model.ts': MODEL }, { head: 'loss', modes: ['tangent', 'reverse'] });
    expect(plain.code).toBe(r.code);
    expect(plain.map).toBeUndefined();
    expect(compile(MODEL, { head: 'loss', js: true, sourceMap: true }).map!.sources).toEqual(['input.ts']);
  });
});
