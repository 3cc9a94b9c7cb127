// TypeScript's own standard library, which user code is type-checked against: the globals a user may
// write are those `tsc` knows, not a hand-written subset. The files are read once per process and
// their parsed (and, by the first checker, bound) source files shared by every later compilation, so
// only the first compilation pays for them. Where there is no file system (a browser build), the
// embedding code hands the texts over with `setLibReader`.
import ts from 'typescript';

/** the virtual directory the compiler host serves the lib files from */
export const LIB_DIR = '/__tsad_stdlib';

/** ECMAScript's library without the DOM: numeric code needs neither `document` nor `window` */
export const STD_LIBS = ['lib.es2023.d.ts'];

/** the default lib file name a compiler host reports (TypeScript resolves lib references next to it) */
export const DEFAULT_LIB = `${LIB_DIR}/${STD_LIBS[0]}`;

type LibReader = (fileName: string) => string | undefined;

let reader: LibReader = readFromTypeScriptPackage;
const texts = new Map<string, string>();
const parsed = new Map<string, ts.SourceFile>();

/** Replace where lib texts come from (an embedding without a file system); clears the cache. */
export function setLibReader(read: LibReader): void {
  reader = read;
  texts.clear();
  parsed.clear();
}

/** a lib file's text by its name, read once it is found (one not found is asked for again) */
function libText(name: string): string | undefined {
  let text = texts.get(name);
  if (text === undefined) {
    text = reader(name);
    if (text !== undefined) texts.set(name, text);
  }
  return text;
}

function readFromTypeScriptPackage(fileName: string): string | undefined {
  const sys = ts.sys as ts.System | undefined;
  if (!sys) return undefined;
  libDir ??= findLibDir(sys);
  return libDir ? sys.readFile(`${libDir}/${fileName}`) : undefined;
}

let libDir: string | null | undefined;

/**
 * The typescript package's lib folder: beside TypeScript's own module, or, when tsad was bundled into
 * another file (TypeScript then runs from that file), in a node_modules above it or above the
 * working directory.
 */
function findLibDir(sys: ts.System): string | null {
  const probe = STD_LIBS[0];
  const beside = ts.getDefaultLibFilePath({}).replace(/\\/g, '/');
  const candidates = [beside.slice(0, beside.lastIndexOf('/'))];
  for (const start of [sys.getExecutingFilePath(), sys.getCurrentDirectory()]) {
    let dir = start.replace(/\\/g, '/');
    for (let i = 0; i < 40 && dir.includes('/'); i++) {
      dir = dir.slice(0, dir.lastIndexOf('/'));
      candidates.push(`${dir}/node_modules/typescript/lib`);
    }
  }
  return candidates.find((d) => sys.fileExists(`${d}/${probe}`)) ?? null;
}

/**
 * Fails with a clear message when the lib files cannot be read: without them no global (not even
 * Array) would be known, and every line of the user's code would be reported instead.
 */
export function requireStdLib(): void {
  if (stdLibText(DEFAULT_LIB) !== undefined) return;
  throw new Error(
    `tsad: TypeScript's standard library (${STD_LIBS.join(', ')}) cannot be read here. Where there is no file system (a browser), ` +
      "call setLibReader(name => text) with the contents of typescript/lib/<name> before compiling.",
  );
}

/** is this host path one of the standard library's files? */
export function isStdLibPath(path: string): boolean {
  return path.startsWith(`${LIB_DIR}/`);
}

/**
 * The parsed lib file at a host path under LIB_DIR, shared across compilations. Parsed without parent
 * pointers (the checker's binder sets them), and as the host's options say (its JSDoc parsing mode).
 */
export function stdLibSourceFile(path: string, lang: ts.ScriptTarget | ts.CreateSourceFileOptions): ts.SourceFile | undefined {
  const name = path.slice(LIB_DIR.length + 1);
  let sf = parsed.get(name);
  if (!sf) {
    const text = libText(name);
    if (text === undefined) return undefined;
    sf = ts.createSourceFile(path, text, lang);
    parsed.set(name, sf);
  }
  return sf;
}

/** the text of a lib file at a host path, for the host's readFile */
export function stdLibText(path: string): string | undefined {
  return libText(path.slice(LIB_DIR.length + 1));
}
