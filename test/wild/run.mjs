// Runs every function of test/wild through the CLI (`--check`, every mode, at the point inputs.json
// gives) and through the runtime API (grad or jacobian of the plain function, helpers in `scope`), and
// prints one line per function: file, head, the CLI's verdict, the runtime API's, the first diagnostic.
// Usage (after `npm run build`, from the repository's root): node test/wild/run.mjs [--api-only]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const { grad, jacobian } = await import(pathToFileURL(path.join(root, 'dist/src/index.js')).href);
const inputs = JSON.parse(fs.readFileSync(path.join(here, 'inputs.json'), 'utf8'));
const apiOnly = process.argv.includes('--api-only');
const scratch = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'tsad-wild-'));

/** the file as an ES module exporting every top-level binding (the runtime API's scope) */
async function load(file) {
  let text = fs.readFileSync(path.join(here, file), 'utf8');
  if (file.endsWith('.ts')) text = ts.transpileModule(text, { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext } }).outputText;
  const sf = ts.createSourceFile('m.js', text, ts.ScriptTarget.Latest, true);
  const names = [];
  for (const s of sf.statements) {
    if ((ts.isFunctionDeclaration(s) || ts.isClassDeclaration(s)) && s.name) names.push(s.name.text);
    if (ts.isVariableStatement(s)) for (const d of s.declarationList.declarations) if (ts.isIdentifier(d.name)) names.push(d.name.text);
  }
  const out = path.join(scratch, file.replace(/\.(ts|js)$/, '.mjs'));
  fs.writeFileSync(out, text.replace(/^export /gm, '') + `\nexport { ${names.join(', ')} };\n`);
  return { mod: await import(pathToFileURL(out).href), names };
}

function cli(file, head, input) {
  const args = [path.join(root, 'dist/src/cli/main.js'), path.join(here, file), '--head', head, '--check'];
  if (input) args.push('--input', JSON.stringify(input));
  try {
    execFileSync('node', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return ['accepted', ''];
  } catch (e) {
    const out = `${e.stdout ?? ''}${e.stderr ?? ''}`;
    const first = out.split('\n').find((l) => /error:|FAIL|INCONCLUSIVE|tsad:/.test(l)) ?? '';
    return [/error:/.test(first) ? 'refused' : 'check failed', first];
  }
}

function api(mod, names, head, input) {
  const scope = Object.fromEntries(names.filter((n) => n !== head).map((n) => [n, mod[n]]));
  const f = mod[head];
  try {
    const y = f(...structuredClone(input));
    (typeof y === 'number' ? grad(f, { scope }) : jacobian(f, { scope }))(...structuredClone(input));
    return ['accepted', ''];
  } catch (e) {
    return ['refused', String(e.message ?? e).split('\n')[0]];
  }
}

for (const [file, heads] of Object.entries(inputs)) {
  const { mod, names } = await load(file);
  for (const [head, input] of Object.entries(heads)) {
    const [c, cwhy] = apiOnly ? ['-', ''] : cli(file, head, input);
    // (no JSON point: an argument that is a function or a typed array)
    const [a, awhy] = input ? api(mod, names, head, input) : ['-', 'no JSON point for its arguments'];
    console.log([file, head, c, a, (cwhy || awhy).slice(0, 200)].join('\t'));
  }
}
fs.rmSync(scratch, { recursive: true, force: true });
