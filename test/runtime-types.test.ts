// The runtime API's types: test/types/runtime-api.types.ts type-checked under --strict, with no error
// (its `@ts-expect-error` lines show wrong uses rejected: an unused one is an error too).
import path from 'node:path';
import ts from 'typescript';
import { expect, it } from 'vitest';

it('grad, valueAndGrad, jvp, vjp and jacobian are typed from f and wrt (tsc --noEmit --strict)', () => {
  const file = path.resolve(__dirname, 'types/runtime-api.types.ts');
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: ['node'],
    skipLibCheck: true,
  });
  const diags = ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file && d.start !== undefined ? `${path.basename(d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}: ` : '';
    return where + ts.flattenDiagnosticMessageText(d.messageText, '\n');
  });
  expect(diags).toEqual([]);
}, 120_000);
