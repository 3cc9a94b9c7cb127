// Builds the playground, a static site: index.html, main.js and main.css (the page), worker.js (the
// compiler, TypeScript and its lib files, run in a Web Worker). esbuild bundles both from the sources
// under src/ and playground/src/; two made-up modules bring in what has no file of its own:
//   virtual:stdlib    the lib .d.ts files tsad type-checks user code against (the worker has no file system)
//   virtual:examples  playground/examples/*.ts as text
// Usage: node playground/build.mjs [outDir]   (default dist/playground)
import * as esbuild from 'esbuild';
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..');

/**
 * The lib files tsad reads: the roots it names (STD_LIBS in src/frontend/stdlib.ts, read from there so
 * the two cannot drift apart) and every `/// <reference lib>` they reach.
 */
function stdlibFiles() {
  const decl = /STD_LIBS\s*=\s*\[([^\]]*)\]/.exec(readFileSync(join(ROOT, 'src/frontend/stdlib.ts'), 'utf8'));
  if (!decl) throw new Error('playground build: STD_LIBS not found in src/frontend/stdlib.ts');
  const roots = [...decl[1].matchAll(/'([^']+)'/g)].map((m) => m[1]);
  const libDir = join(ROOT, 'node_modules/typescript/lib');
  const files = {};
  const visit = (name) => {
    if (name in files) return;
    files[name] = readFileSync(join(libDir, name), 'utf8');
    for (const m of files[name].matchAll(/^\/\/\/\s*<reference lib="([^"]+)"/gm)) visit(`lib.${m[1].toLowerCase()}.d.ts`);
  };
  roots.forEach(visit);
  return files;
}

function examples() {
  const dir = join(HERE, 'examples');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .sort()
    .map((file) => {
      const source = readFileSync(join(dir, file), 'utf8');
      const title = /^\/\/\s*([^:\n]+)/.exec(source)?.[1].trim() ?? file;
      return { file, title, source };
    });
}

/** serves the virtual: modules, each as JSON data behind one named export */
const virtualModules = {
  name: 'tsad-virtual',
  setup(build) {
    const modules = { 'virtual:stdlib': () => ({ LIBS: stdlibFiles() }), 'virtual:examples': () => ({ EXAMPLES: examples() }) };
    build.onResolve({ filter: /^virtual:/ }, (args) => ({ path: args.path, namespace: 'virtual' }));
    build.onLoad({ filter: /.*/, namespace: 'virtual' }, (args) => {
      const make = modules[args.path];
      if (!make) return { errors: [{ text: `unknown module ${args.path}` }] };
      const [[name, value]] = Object.entries(make());
      return { contents: `export const ${name} = ${JSON.stringify(value)};`, loader: 'js' };
    });
  },
};

/** Builds into `outDir`; returns the output files' sizes in bytes, by name. */
export async function buildPlayground(outDir = join(ROOT, 'dist/playground'), { minify = true } = {}) {
  mkdirSync(outDir, { recursive: true });
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: { main: join(HERE, 'src/main.ts'), worker: join(HERE, 'src/worker/index.ts') },
    outdir: outDir,
    bundle: true,
    platform: 'browser',
    // classic scripts (a classic worker too): no module workers or import maps needed
    format: 'iife',
    target: 'es2020',
    minify,
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
    plugins: [virtualModules],
  });
  copyFileSync(join(HERE, 'index.html'), join(outDir, 'index.html'));
  const sizes = { 'index.html': readFileSync(join(outDir, 'index.html')).length };
  for (const [file, out] of Object.entries(result.metafile.outputs)) sizes[file.slice(file.lastIndexOf('/') + 1)] = out.bytes;
  return sizes;
}

// run as a script (not when a test imports it)
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const out = resolve(process.argv[2] ?? join(ROOT, 'dist/playground'));
  const sizes = await buildPlayground(out);
  const kb = (n) => `${(n / 1024).toFixed(0)} kB`;
  console.log(`playground built in ${out}: ${Object.entries(sizes).map(([f, n]) => `${f} ${kb(n)}`).join(', ')}`);
}
