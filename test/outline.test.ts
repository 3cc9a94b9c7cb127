// The outline an edited function is checked in (src/api/outline.ts, issue 21): which bodies are blanked,
// and that blanking keeps every position of the file.
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { outline, wordCounts, type OutlinedBody } from '../src/api/outline.js';

/** the top-level function declarations of `text` as the outline takes them, and the words outside their bodies */
function shapesOf(text: string): { bodies: Map<string, OutlinedBody>; outside: Map<string, number> } {
  const sf = ts.createSourceFile('m.ts', text, ts.ScriptTarget.Latest, true);
  const bodies = new Map<string, OutlinedBody>();
  for (const st of sf.statements) {
    if (!ts.isFunctionDeclaration(st) || !st.name || !st.body) continue;
    bodies.set(st.name.text, { bodyStart: st.body.getStart(sf) + 1, bodyEnd: st.body.end - 1, reusable: !!st.type });
  }
  const outside = new Map<string, number>();
  let from = 0;
  for (const b of bodies.values()) {
    if (!b.reusable) continue;
    wordCounts(text.slice(from, b.bodyStart), outside);
    from = b.bodyEnd;
  }
  wordCounts(text.slice(from), outside);
  return { bodies, outside };
}

const TEXT = `const TABLE = [1, 2];
const PICK = chosen;

function edited(x: number): number {
  return callee(x) + 1;
}

function callee(x: number): number {
  return x * deeper(x);
}

function deeper(x: number): number {
  return x + 0.5;
}

function caller(x: number): number {
  // a mention in a comment: edited
  return x + helperOfCaller(x);
}

function helperOfCaller(x: number): number {
  return x;
}

function chosen(x: number): number {
  return x;
}

function untyped(x: number) {
  return x * alone(x);
}

function alone(x: number): number {
  const s = 'text\\nwith a line break';
  return x *
    2;
}

function unrelated(x: number): number {
  return Math.sin(x);
}
`;

describe('outline', () => {
  const edit = (text: string) => text.replace('callee(x) + 1', 'callee(x) + 2.5');

  it('blanks the bodies no kept text names, and those only', () => {
    const { bodies, outside } = shapesOf(TEXT);
    const out = outline({ before: TEXT, after: edit(TEXT), bodies, edited: 'edited', outside });
    // kept: edited's callees (transitively), a body naming edited (not what it calls), a function a
    // constant names, a function without a return type and what it calls
    expect(out?.blanked.sort()).toEqual(['helperOfCaller', 'unrelated']);
  });

  it('keeps every position: same length, the line breaks where they were, the edited body as edited', () => {
    const { bodies, outside } = shapesOf(TEXT);
    const after = edit(TEXT).replace('return callee', 'const y = 1;\n  return callee');
    const out = outline({ before: TEXT, after, bodies, edited: 'edited', outside })!;
    expect(out.text.length).toBe(after.length);
    for (let i = 0; i < after.length; i++) if ('\n\r'.includes(after[i]) || '\n\r'.includes(out.text[i])) expect(out.text[i]).toBe(after[i]);
    expect(out.text).toContain('const y = 1;\n  return callee(x) + 2.5;');
    expect(out.text).not.toContain('Math.sin');
    const sf = ts.createSourceFile('m.ts', out.text, ts.ScriptTarget.Latest, true);
    expect(sf.statements.length).toBe(ts.createSourceFile('m.ts', after, ts.ScriptTarget.Latest, true).statements.length);
  });

  it('blanks the unreferenced callees of a body once they are no longer named', () => {
    const text = TEXT.replace('callee(x) + 1', 'x + 1');
    const { bodies, outside } = shapesOf(text);
    const out = outline({ before: text, after: text.replace('x + 1', 'x + 2'), bodies, edited: 'edited', outside });
    expect(out?.blanked.sort()).toEqual(['callee', 'deeper', 'helperOfCaller', 'unrelated']);
  });

  it('blanks nothing in a file with a \\u escape (an identifier may be spelt with one)', () => {
    const text = TEXT.replace("'text", "'\\u0074ext");
    const { bodies, outside } = shapesOf(text);
    expect(outline({ before: text, after: edit(text), bodies, edited: 'edited', outside })).toBeNull();
  });
});
