import { it } from 'vitest';
import { corpus } from '/work/main/test/corpus/index.js';
import { compileCase, drawArgs } from '/work/main/test/support/corpus.js';
import { checkCompiled } from '/work/main/src/api/check.js';
it('dbg', () => {
  const name = process.env.CASE!;
  const c = corpus.find((x) => x.name === name)!;
  const r = compileCase(c, { js: false });
  console.log(r.code);
  const rj = compileCase(c);
  try { console.log(checkCompiled(rj, rj.code, c.head, drawArgs(c, 7))); } catch (e) { console.log((e as Error).stack); }
});
