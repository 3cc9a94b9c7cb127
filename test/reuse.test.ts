// Reusing derivatives and parses across compiles (src/transform/reuse.ts, src/frontend/reparse.ts,
// issue 21): a compile after an edit must give exactly what a compile from scratch gives. Each test
// compiles an edited source, then another one that shares most of its functions (so that much is
// reused), and compares with the same source compiled with nothing kept.
import { describe, expect, it } from 'vitest';
import { compile, forgetFrontEnds, type CompileOptions, type CompileResult } from '../src/api/compile.js';
import { forgetReusedDerivatives, reusedInLastCompile } from '../src/transform/reuse.js';
import { syntheticModule } from '../bench/synthetic.js';
import { corpus } from './corpus/index.js';
import { caseSources, compileCase } from './support/corpus.js';

const outcome = (r: CompileResult) => ({ code: r.code, manifest: r.manifest, diagnostics: r.diagnostics, primals: r.primals, wrt: r.wrt, of: r.of });

/**
 * the result of compiling `after` once `before` was compiled (its parse updated from `before`'s,
 * src/frontend/reparse.ts, and its derivatives reused), and the result of compiling `after` from scratch
 */
function warmAndCold(compileIt: (files: Record<string, string>) => CompileResult, before: Record<string, string>, after: Record<string, string>) {
  forgetReusedDerivatives();
  forgetFrontEnds();
  compileIt(before);
  const warm = outcome(compileIt(after));
  const reused = reusedInLastCompile();
  forgetReusedDerivatives();
  forgetFrontEnds();
  const cold = outcome(compileIt(after));
  return { warm, cold, reused };
}

/** one digit of the `k`-th number literal changed (the length kept, so no location moves); null if there is none */
function editNumber(text: string, k: number): string | null {
  const spots = [...text.matchAll(/(?<![\w.])\d+(\.\d+)?(?![\w.])/g)].filter((m) => !/^\s*\/\//.test(text.slice(text.lastIndexOf('\n', m.index) + 1, m.index)));
  if (!spots.length) return null;
  const m = spots[k % spots.length];
  const at = m.index! + m[0].length - 1;
  const d = Number(text[at]);
  return text.slice(0, at) + String(d === 9 ? 8 : d + 1) + text.slice(at + 1);
}

describe('reuse after an edit gives the cold output', () => {
  const { text, head } = syntheticModule(12);
  const ALL: CompileOptions['modes'] = ['tangent', 'vector', 'reverse'];
  const edits: [string, (t: string) => string][] = [
    ['a callee constant', (t) => t.replace('Math.sin(x[j] * 0.8)', 'Math.sin(x[j] * 0.9)')],
    ['a callee whose activity changes', (t) => t.replace('function part3(x: number[], w: number[], t: number): number {\n  const n = x.length;\n  const y: number[] = new Array(n).fill(0);\n  let s = 0;\n  for (let j = 0; j < n; j++) s += w[j] * x[j];', 'function part3(x: number[], w: number[], t: number): number {\n  const n = x.length;\n  const y: number[] = new Array(n).fill(0);\n  let s = 0;\n  for (let j = 0; j < n; j++) s += w[j] * 2.0;')],
    ['the head', (t) => t.replace('  return total;\n}\n$', '  return total * t;\n}\n').replace(/(export function all[\s\S]*?)return total;/, '$1return total * t;')],
    // (its callers' sweeps change though no signature does: what it records and reads is asked by them)
    ['a callee that no longer records', (t) => t.replace(/function part7\(x: number\[\], w: number\[\], t: number\): number \{[\s\S]*?\n\}\n/, 'function part7(x: number[], w: number[], t: number): number {\n  return x[0] * w[0] * t;\n}\n')],
    ['a group', (t) => t.replace('  total += part4(x, w, t);', '  total += part4(w, x, t);')],
    ['a parameter type', (t) => t.replace('function part5(x: number[], w: number[]', 'function part5(x: readonly number[], w: number[]')],
    ['lines shifted', (t) => t.replace('function part2(', '\n\nfunction part2(')],
    ['a function added whose name a derivative would take', (t) => `${t}\nexport function part1_d(x: number): number {\n  return x;\n}\n`],
    ['a callee no longer called', (t) => t.replace('  total += part6(x, w, t);\n', '')],
  ];
  for (const mode of [ALL, ['reverse'], ['vector']] as CompileOptions['modes'][]) {
    it(`the generated module, ${mode!.join(' and ')}, over a chain of edits`, () => {
      const run = (files: Record<string, string>) => compile(files, { head, modes: mode });
      let before = text;
      for (const [what, edit] of edits) {
        const after = edit(before);
        expect(after, what).not.toBe(before);
        const { warm, cold, reused } = warmAndCold(run, { 'm.ts': before }, { 'm.ts': after });
        expect(cold.diagnostics, what).toEqual([]);
        expect(warm, what).toEqual(cold);
        // (the test means something only where derivatives were reused)
        if (what !== 'a function added whose name a derivative would take' && what !== 'a callee no longer called') expect(reused, what).toBeGreaterThan(0);
        // and back again: the unedited functions of `before` are kept too
        const back = warmAndCold(run, { 'm.ts': after }, { 'm.ts': before });
        expect(back.warm, `${what}, undone`).toEqual(back.cold);
        before = after;
      }
    });
  }
});

describe('reuse after an edit gives the cold output: the corpus, one number changed', () => {
  corpus.forEach((c, i) =>
    it(c.name, () => {
      const files = caseSources(c.file);
      const edited = editNumber(files[c.file], i * 7 + 3);
      if (edited === null) return;
      const options: Partial<CompileOptions> = i % 3 === 0 ? { adjoint: { checkpointCalls: true } } : i % 3 === 1 ? {} : { adjoint: { tbr: false, merge: false } };
      const run = (f: Record<string, string>) => compileCase(c, options, f);
      const { warm, cold } = warmAndCold(run, { ...files, [c.file]: edited }, files);
      expect(warm).toEqual(cold);
      const back = warmAndCold(run, files, { ...files, [c.file]: edited });
      expect(back.warm).toEqual(back.cold);
    }),
  );
});
