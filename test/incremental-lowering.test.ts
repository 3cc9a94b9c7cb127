// The front end after an edit inside one function's body (src/api/incremental.ts, issue 21): only the
// edited function is checked and lowered when nothing else can depend on its body, and either way the
// compile gives what a compile from nothing gives (code, source map, diagnostics with their frames).
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { compile, forgetFrontEnds, type CompileOptions, type CompileResult } from '../src/api/compile.js';
import { loweredAloneLast } from '../src/api/incremental.js';
import { forgetReusedDerivatives } from '../src/transform/reuse.js';
import { corpus } from './corpus/index.js';
import { caseSources } from './support/corpus.js';

const outcome = (r: CompileResult) => ({ code: r.code, map: r.map, manifest: r.manifest, diagnostics: r.diagnostics, primals: r.primals, wrt: r.wrt, of: r.of });

/** `after` compiled once `before` was (warm), and from nothing (cold); which function the warm compile lowered alone */
function editThenCold(before: string, after: string, options: CompileOptions) {
  expect(after).not.toBe(before);
  forgetFrontEnds();
  forgetReusedDerivatives();
  compile(before, options);
  const warm = outcome(compile(after, options));
  const alone = loweredAloneLast();
  forgetFrontEnds();
  forgetReusedDerivatives();
  const cold = outcome(compile(after, options));
  return { warm, cold, alone };
}

const SOURCE = `interface Pt { x: number; y: number }
interface Box { lo: Pt; hi: Pt }
const SCALE = [1, 2, 3];

function sq(v: number): number {
  return v * v;
}

function norm(p: Pt): number {
  return Math.sqrt(sq(p.x) + sq(p.y));
}

function mapSum(xs: number[], f: (v: number) => number): number {
  let s = 0;
  for (const v of xs) s += f(v);
  return s;
}

function inferred(a: number) {
  return a * 2;
}

function area(b: Box): number {
  return (b.hi.x - b.lo.x) * (b.hi.y - b.lo.y);
}

function later(xs: number[], p: Pt): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i] * SCALE[i % 3];
  return s * norm(p);
}

export function loss(xs: number[], p: Pt): number {
  const b: Box = { lo: p, hi: { x: p.x + 1, y: p.y + 2 } };
  return later(xs, p) + area(b) + inferred(p.x) + mapSum(xs, (v) => v * p.y);
}
`;
const OPTIONS: CompileOptions = { head: 'loss', sourceMap: true };

describe('an edit inside one function body', () => {
  it('lowers only that function when the edit changes a constant, and gives the cold output', () => {
    const r = editThenCold(SOURCE, SOURCE.replace('s * norm(p)', 's * norm(p) * 1.5'), OPTIONS);
    expect(r.alone).toBe('later');
    expect(r.warm).toEqual(r.cold);
  });

  it('moves the later functions by the lines an edit adds or removes (source map and diagnostics)', () => {
    // (`bad` fails to lower and the head reaches it: its diagnostic and code frame come after the edit)
    const withBad = SOURCE.replace('export function loss', 'function bad(a: number): number {\n  return Math.random() * a;\n}\n\nexport function loss').replace('inferred(p.x) +', 'inferred(p.x) + bad(p.x) +');
    const added = editThenCold(withBad, withBad.replace('  return (b.hi.x', '  const w = b.hi.x;\n\n  return (w'), OPTIONS);
    expect(added.alone).toBe('area');
    expect(added.warm.diagnostics.length).toBeGreaterThan(0);
    expect(added.warm).toEqual(added.cold);
    const removed = editThenCold(SOURCE, SOURCE.replace('  let s = 0;\n  for (let i', '  let s = 0; for (let i'), OPTIONS);
    expect(removed.alone).toBe('later');
    expect(removed.warm).toEqual(removed.cold);
  });

  it('lowers the whole file when the edit reaches outside the body (signature, a new function, two functions)', () => {
    const signature = editThenCold(SOURCE, SOURCE.replace('function sq(v: number): number', 'function sq(v: number, k = 1): number'), OPTIONS);
    expect(signature.alone).toBeNull();
    expect(signature.warm).toEqual(signature.cold);
    const newFunction = editThenCold(SOURCE, SOURCE.replace('  return v * v;\n}', '  return v * v;\n}\nfunction cube(v: number): number {\n  return v * v * v;'), OPTIONS);
    expect(newFunction.alone).toBeNull();
    expect(newFunction.warm).toEqual(newFunction.cold);
    const two = editThenCold(SOURCE, SOURCE.replace('v * v;', 'v * v * 1;').replace('sq(p.y))', 'sq(p.y) + 1)'), OPTIONS);
    expect(two.alone).toBeNull();
    expect(two.warm).toEqual(two.cold);
  });

  it('lowers the whole file for a function whose return type is inferred (its callers see its body)', () => {
    const r = editThenCold(SOURCE, SOURCE.replace('return a * 2;', 'return a > 0 ? a * 2 : undefined;'), OPTIONS);
    expect(r.alone).toBeNull();
    expect(r.warm.diagnostics.length).toBeGreaterThan(0);
    expect(r.warm).toEqual(r.cold);
  });

  it('lowers the whole file for a helper taking functions (each caller lowers a copy of its body)', () => {
    const r = editThenCold(SOURCE, SOURCE.replace('s += f(v);', 's += 2 * f(v);'), OPTIONS);
    expect(r.alone).toBeNull();
    expect(r.warm).toEqual(r.cold);
  });

  it('lowers the whole file when the body calls a helper taking functions (its copy is named in the order asked)', () => {
    const r = editThenCold(SOURCE, SOURCE.replace('return (b.hi.x - b.lo.x)', 'return mapSum([b.lo.x], (v) => v) + (b.hi.x - b.lo.x)'), OPTIONS);
    expect(r.alone).toBeNull();
    expect(r.warm).toEqual(r.cold);
  });

  it('lowers the whole file when the body assigns a module variable, before or after the edit', () => {
    const withVar = SOURCE.replace('const SCALE', 'var OFFSET = 0.5;\nconst SCALE').replace('return v * v;', 'return v * v + OFFSET;');
    const assigns = editThenCold(withVar, withVar.replace('  return s * norm(p);', '  OFFSET = 1;\n  return s * norm(p);'), OPTIONS);
    expect(assigns.alone).toBeNull();
    expect(assigns.warm.diagnostics.length).toBeGreaterThan(0);
    expect(assigns.warm).toEqual(assigns.cold);
    const assigned = withVar.replace('  return s * norm(p);', '  OFFSET = 1;\n  return s * norm(p);');
    const unassigns = editThenCold(assigned, withVar, OPTIONS);
    expect(unassigns.alone).toBeNull();
    expect(unassigns.warm).toEqual(unassigns.cold);
  });

  it('lowers the whole file when the edit makes a type error, or makes the function fail to lower', () => {
    const typeError = editThenCold(SOURCE, SOURCE.replace('return v * v;', 'const t: string = v;\n  return v * v;'), OPTIONS);
    expect(typeError.alone).toBeNull();
    expect(typeError.warm.diagnostics.length).toBeGreaterThan(0);
    expect(typeError.warm).toEqual(typeError.cold);
    const fails = editThenCold(SOURCE, SOURCE.replace('return v * v;', 'return v * Math.random();'), OPTIONS);
    expect(fails.alone).toBeNull();
    expect(fails.warm.diagnostics.length).toBeGreaterThan(0);
    expect(fails.warm).toEqual(fails.cold);
  });

  it('lowers the whole file when the body declares a type, or is the first to use a named type a later function used first', () => {
    const local = editThenCold(SOURCE, SOURCE.replace('  return v * v;', '  type V = number;\n  const w: V = v;\n  return w * v;'), OPTIONS);
    expect(local.alone).toBeNull();
    expect(local.warm).toEqual(local.cold);
    // (Box is first met in area; sq meeting it moves it ahead in the printed types)
    const first = editThenCold(SOURCE, SOURCE.replace('  return v * v;', '  const b: Box = { lo: { x: v, y: v }, hi: { x: v, y: v } };\n  return v * b.hi.x;'), OPTIONS);
    expect(first.alone).toBeNull();
    expect(first.warm).toEqual(first.cold);
  });

  it('lowers the whole file when the line the edit ends on holds the next function', () => {
    const oneLine = SOURCE.replace('function sq(v: number): number {\n  return v * v;\n}\n\nfunction norm', 'function sq(v: number): number { return v * v; } function norm');
    const r = editThenCold(oneLine, oneLine.replace('return v * v;', 'return v * v * 2;'), OPTIONS);
    expect(r.alone).toBeNull();
    expect(r.warm).toEqual(r.cold);
  });
});

/** the first top-level function with an annotated return type and a non-empty body, and where its body opens */
function editable(text: string): { body: ts.Block; at: number } | null {
  const sf = ts.createSourceFile('m.ts', text, ts.ScriptTarget.ES2020, true);
  for (const st of sf.statements) if (ts.isFunctionDeclaration(st) && st.type && st.body && st.body.statements.length) return { body: st.body, at: st.body.getStart(sf) + 1 };
  return null;
}

describe('corpus sources, each edited inside a function body, give the cold output', () => {
  const cases = corpus.filter((_, i) => i % 10 === 0).flatMap((c) => {
    const files = Object.values(caseSources(c.file));
    return files.length === 1 ? [{ name: c.name, head: c.head, text: files[0] }] : [];
  });
  it(`${cases.length} sources: a line added at the top of a body, and a numeric literal changed`, () => {
    let alone = 0;
    let edits = 0;
    for (const c of cases) {
      const e = editable(c.text);
      if (!e) continue;
      const added = c.text.slice(0, e.at) + '\n  const tsadEdited = 1;\n' + c.text.slice(e.at);
      const literal = e.body.getText().match(/(?<![\w.])(\d+)(?![\w.])/);
      const at = literal ? c.text.indexOf(literal[0], e.at + (literal.index ?? 0) - 1) : -1;
      const changed = at >= 0 ? c.text.slice(0, at) + String(Number(literal![0]) + 1) + c.text.slice(at + literal![0].length) : null;
      for (const after of changed ? [added, changed] : [added]) {
        const r = editThenCold(c.text, after, { head: c.head });
        expect(r.warm, c.name).toEqual(r.cold);
        edits++;
        if (r.alone) alone++;
      }
    }
    expect(edits).toBeGreaterThan(30);
    // (most of these functions meet the conditions: the path is taken, not only refused)
    expect(alone).toBeGreaterThan(edits / 3);
  });
});
