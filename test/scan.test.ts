import { it } from 'vitest';
import { corpus } from '/work/main/test/corpus/index.js';
import { compileCase, drawArgs } from '/work/main/test/support/corpus.js';
import { checkCompiled } from '/work/main/src/api/check.js';
import { formatDiagnostic } from '/work/main/src/frontend/diagnostics.js';
it('corpus scan', () => {
  let ok = 0; const bad: string[] = [];
  for (const c of corpus) {
    try {
      const r = compileCase(c);
      if (r.diagnostics.length) { bad.push(`${c.name}: DIAG ${r.diagnostics.map(formatDiagnostic).join(' | ').slice(0, 300)}`); continue; }
      const rep = checkCompiled(r, r.code, c.head, drawArgs(c, 7));
      if (rep.ok) ok++; else bad.push(`${c.name}: ${rep.messages.join('; ')}`);
    } catch (e) { bad.push(`${c.name}: THROW ${(e as Error).message.slice(0, 300)}`); }
  }
  console.log(`ok ${ok}/${corpus.length}\n` + bad.join('\n'));
});
