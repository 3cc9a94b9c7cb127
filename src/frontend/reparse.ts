// Parsing a user's file again after an edit (issue 21: a recompile after a one-function edit). The
// front end keeps the parsed files of its last program and gives TypeScript's incremental parser the
// next text of the same path: the statements outside the changed span are reused, not parsed again.
//
// TypeScript's incremental parse reuses the old tree's nodes and shifts their positions, so the old
// tree is unusable afterwards. A kept file is therefore taken out when it is updated (a compile nested
// inside another, which lowers while its caller's program is still in use, finds nothing kept and
// parses afresh), and kept again only once the program that used it is done with (keepParsed).
import ts from 'typescript';

interface Kept {
  sf: ts.SourceFile;
  /** how it was parsed (language version, module format): a different setting parses afresh */
  how: string;
}

const kept = new Map<string, Kept>();
/** how each file parseAgain handed out was parsed */
const parsedHow = new WeakMap<ts.SourceFile, string>();

function howParsed(lang: ts.ScriptTarget | ts.CreateSourceFileOptions): string {
  // (the options' function member is derived from the compiler options, which the callers fix)
  return typeof lang === 'object' ? JSON.stringify({ ...lang, setExternalModuleIndicator: undefined }) : String(lang);
}

/** The parsed file at `path` for `text`: the kept parse of the path updated to it, or a new one. */
export function parseAgain(path: string, text: string, lang: ts.ScriptTarget | ts.CreateSourceFileOptions): ts.SourceFile {
  const how = howParsed(lang);
  const old = kept.get(path);
  kept.delete(path);
  let sf: ts.SourceFile;
  if (!old || old.how !== how) sf = ts.createSourceFile(path, text, lang, true);
  else if (old.sf.text === text) sf = old.sf;
  else sf = ts.updateSourceFile(old.sf, text, changeBetween(old.sf.text, text));
  parsedHow.set(sf, how);
  return sf;
}

/** Keeps parsed files for the next parse of their paths; their program must be done with. */
export function keepParsed(files: Iterable<ts.SourceFile>): void {
  for (const sf of files) {
    const how = parsedHow.get(sf);
    if (how !== undefined) kept.set(sf.fileName, { sf, how });
  }
}

/** Forgets every kept parse (benchmarks timing a cold compile). */
export function forgetParsed(): void {
  kept.clear();
}

/** the one span of `before` that `after` replaces: from the first character that differs to the last */
function changeBetween(before: string, after: string): ts.TextChangeRange {
  const min = Math.min(before.length, after.length);
  let start = 0;
  while (start < min && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  let end = 0;
  while (end < min - start && before.charCodeAt(before.length - 1 - end) === after.charCodeAt(after.length - 1 - end)) end++;
  return ts.createTextChangeRange(ts.createTextSpan(start, before.length - end - start), after.length - end - start);
}
