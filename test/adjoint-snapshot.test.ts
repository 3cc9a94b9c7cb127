// Guards the generated code byte for byte: every corpus function and the GradBench eval sources are
// compiled (all three modes in one module) at the default options, and in reverse mode at the naive
// adjoint level and in joint mode; the sha256 and length of each module are compared with
// test/snapshots/generated.json (keys `case|variant`).
// A refactor of the transforms must leave every entry unchanged; a deliberate change of the output
// rewrites the file with
//   UPDATE_SNAPSHOTS=1 npx vitest run test/adjoint-snapshot.test.ts
// (then review the diff of generated.json: it names exactly the cases whose code changed).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { compile, type CompileOptions, type CompileResult, type Mode } from '../src/api/compile.js';
import { kmeansAdjointSource, kmeansTangentSource } from '../evals/kmeans/derivatives.js';
import { evalSource } from '../evals/tsad.js';
import { corpus } from './corpus/index.js';
import { caseSources, compileCase } from './support/corpus.js';

const SNAPSHOT = join(dirname(fileURLToPath(import.meta.url)), 'snapshots', 'generated.json');

const NAIVE: Partial<CompileOptions> = { adjoint: { tbr: false, recompute: false, diffLiveness: false, merge: false } };
const JOINT: Partial<CompileOptions> = { adjoint: { checkpointCalls: true } };

/** The eval objectives with the heads, independents and dependents of evals/<eval>/derivatives.ts. */
interface EvalCase {
  name: string;
  files: () => Record<string, string>;
  head: string;
  wrt: string[];
  of?: string[];
  /** also fingerprinted in the sparse vector mode (`|sparse-vector`), as derivatives.ts compiles it */
  sparseVector?: boolean;
}
const one = (ev: string, head: string, wrt: string[]): EvalCase => ({ name: `eval/${ev}/${head}`, files: () => ({ [`${ev}.ts`]: evalSource(ev) }), head, wrt });
const EVALS: EvalCase[] = [
  one('hello', 'square', ['x']),
  one('lse', 'logsumexp', ['x']),
  one('llsq', 'llsq', ['x']),
  one('det', 'det', ['A']),
  one('ode', 'odeLast', ['x']),
  one('gmm', 'gmmObjective', ['alpha', 'mu', 'q', 'l']),
  one('kmeans', 'kmeansCost', ['centroids']),
  one('lstm', 'lstmObjective', ['mainParams', 'extraParams']),
  one('ba', 'reprojError', ['cam', 'X', 'w']),
  one('ba', 'weightError', ['w']),
  { ...one('ht', 'htObjectiveSimpleInto', ['theta']), of: ['err'], sparseVector: true },
  { ...one('ht', 'htObjectiveComplicatedInto', ['theta', 'us']), of: ['err'], sparseVector: true },
  one('particle', 'potential', ['p']),
  one('saddle', 'saddleF', ['b']),
  // nested: tsad's own output differentiated again (the kmeans Hessian diagonal)
  { name: 'eval/kmeans/kmeansCost_b', files: () => ({ 'kmeans_b.ts': kmeansAdjointSource() }), head: 'kmeansCost_b', wrt: ['centroids'], of: ['centroidsb'] },
  { name: 'eval/kmeans/kmeansCost_d', files: () => ({ 'kmeans_d.ts': kmeansTangentSource() }), head: 'kmeansCost_d', wrt: ['centroids', 'centroidsd'] },
];

const TS_OUT: Partial<CompileOptions> = { js: false, runtimeImport: 'tsad/runtime' };

function fingerprint(generate: () => string): string {
  let code: string;
  try {
    code = generate();
  } catch (e) {
    return `throws ${(e as Error).message.split('\n')[0]}`;
  }
  return `${createHash('sha256').update(code).digest('hex')} ${code.length}`;
}

/**
 * One source at its three variants: all three modes at the default options; the adjoint alone at the
 * naive level and in joint mode (the adjoint options do not reach the tangent modes), the latter only
 * where the head calls other functions (joint mode changes nothing else). The variants reuse the
 * independents and dependents the default compilation settled on, which saves a front-end run each.
 */
function fingerprints(out: Record<string, string>, name: string, compileDefault: () => CompileResult, compileWith: (o: Partial<CompileOptions>) => CompileResult): void {
  let base: CompileResult;
  try {
    base = compileDefault();
  } catch (e) {
    out[`${name}|default`] = `throws ${(e as Error).message.split('\n')[0]}`;
    return;
  }
  out[`${name}|default`] = fingerprint(() => base.code);
  const same = { wrt: base.wrt, of: base.of, modes: ['reverse'] as Mode[] };
  out[`${name}|naive`] = fingerprint(() => compileWith({ ...same, ...NAIVE }).code);
  if (base.primals.length > 1) out[`${name}|joint`] = fingerprint(() => compileWith({ ...same, ...JOINT }).code);
}

function current(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const c of corpus) {
    fingerprints(out, c.name, () => compileCase(c, TS_OUT), (o) => compile(caseSources(c.file), { head: c.head, ...TS_OUT, ...o }));
  }
  for (const e of EVALS) {
    const files = e.files();
    const run = (o: Partial<CompileOptions>) => compile(files, { head: e.head, wrt: e.wrt, ...(e.of ? { of: e.of } : {}), ...TS_OUT, ...o });
    fingerprints(out, e.name, () => run({}), run);
    if (e.sparseVector) out[`${e.name}|sparse-vector`] = fingerprint(() => run({ modes: ['vector'], sparseVector: true }).code);
  }
  return out;
}

it('generated code is byte-identical to test/snapshots/generated.json', () => {
  const now = current();
  if (process.env['UPDATE_SNAPSHOTS'] === '1' || !existsSync(SNAPSHOT)) {
    writeFileSync(SNAPSHOT, `${JSON.stringify(now, null, 1)}\n`);
    return;
  }
  const stored = JSON.parse(readFileSync(SNAPSHOT, 'utf8')) as Record<string, string>;
  const keys = [...new Set([...Object.keys(stored), ...Object.keys(now)])].sort();
  const changed = keys.filter((k) => stored[k] !== now[k]).map((k) => `${k}: ${stored[k] ?? '(new)'} -> ${now[k] ?? '(gone)'}`);
  expect(changed, 'cases whose generated code changed (UPDATE_SNAPSHOTS=1 rewrites the file)').toEqual([]);
}, 1_800_000);
