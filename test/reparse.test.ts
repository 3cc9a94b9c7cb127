// The front end's incremental parse (src/frontend/reparse.ts, issue 21): the statements an edit leaves
// alone are reused from the last parse, a kept parse is handed out once, and compiling one text after
// another through it gives what compiling each from nothing gives.
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { compile, forgetFrontEnds, type CompileResult } from '../src/api/compile.js';
import { forgetParsed, keepParsed, parseAgain } from '../src/frontend/reparse.js';
import { forgetReusedDerivatives } from '../src/transform/reuse.js';
import { syntheticModule } from '../bench/synthetic.js';
import { corpus } from './corpus/index.js';
import { caseSources } from './support/corpus.js';

const LANG = ts.ScriptTarget.ES2020;

describe('parseAgain', () => {
  const { text } = syntheticModule(6);
  // (part3's first constant: a statement in the middle of the module)
  const edited = text.replace(/(function part3[^]*?Math\.sin\(x\[j\] \* )([\d.]+)/, (_, head: string, c: string) => head + (Number(c) + 0.1).toFixed(1));

  it('reuses the statements outside the edit, and parses the edited one again', () => {
    forgetParsed();
    const first = parseAgain('m.ts', text, LANG);
    const kept = [...first.statements];
    keepParsed([first]);
    const second = parseAgain('m.ts', edited, LANG);
    expect(edited).not.toBe(text);
    expect(second.text).toBe(edited);
    const edit = edited.indexOf('Math.sin', edited.indexOf('function part3'));
    const changed = second.statements.findIndex((s) => s.pos <= edit && edit < s.end);
    expect(changed).toBe(3);
    second.statements.forEach((s, i) => (i === changed ? expect(kept).not.toContain(s) : expect(s).toBe(kept[i])));
    // (the same tree a parse from nothing gives, position for position)
    const fresh = ts.createSourceFile('m.ts', edited, LANG, true);
    const shape = (sf: ts.SourceFile) => {
      const out: string[] = [];
      const walk = (n: ts.Node) => {
        out.push(`${ts.SyntaxKind[n.kind]}@${n.pos}-${n.end}`);
        n.forEachChild(walk);
      };
      walk(sf);
      return out;
    };
    expect(shape(second)).toEqual(shape(fresh));
  });

  it('hands a kept parse out once (a nested compile parses afresh), and only for the same settings', () => {
    forgetParsed();
    const first = parseAgain('m.ts', text, LANG);
    keepParsed([first]);
    expect(parseAgain('m.ts', text, LANG)).toBe(first);
    expect(parseAgain('m.ts', text, LANG)).not.toBe(first);
    keepParsed([first]);
    expect(parseAgain('m.ts', text, ts.ScriptTarget.ES5)).not.toBe(first);
    keepParsed([first]);
    expect(parseAgain('other.ts', text, LANG)).not.toBe(first);
  });
});

const outcome = (r: CompileResult) => ({ code: r.code, manifest: r.manifest, diagnostics: r.diagnostics, primals: r.primals, wrt: r.wrt, of: r.of });

describe('compiles through the incremental parse give the cold output', () => {
  // one file name for every case: each parse is an update of the one before, over arbitrary edits
  // (and the edited sources with a type error: the diagnostics' locations come from the updated tree)
  const cases = corpus.filter((_, i) => i % 16 === 0).map((c) => ({ c, text: Object.values(caseSources(c.file)) }));
  const single = cases.filter(({ text }) => text.length === 1).map(({ c, text }) => ({ head: c.head, name: c.name, text: text[0] }));
  it(`${single.length} corpus sources in a row, then each with a type error added`, () => {
    expect(single.length).toBeGreaterThan(8);
    const texts = [...single, ...single.map((s) => ({ ...s, name: `${s.name} (error)`, text: s.text.replace(/\n(?=[^\n]*$)/, '\nconst tsadBroken: number = "no";\n') }))];
    forgetFrontEnds();
    forgetReusedDerivatives();
    const warm = texts.map((t) => outcome(compile(t.text, { head: t.head })));
    const cold = texts.map((t) => {
      forgetFrontEnds();
      forgetReusedDerivatives();
      return outcome(compile(t.text, { head: t.head }));
    });
    texts.forEach((t, i) => expect(warm[i], t.name).toEqual(cold[i]));
    expect(warm.slice(single.length).every((w) => w.diagnostics.length > 0)).toBe(true);
  });
});
