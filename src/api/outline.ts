// The text TypeScript checks an edited function in (issue 21: a recompile after a one-function edit).
// TypeScript binds a whole source file again for every program, however little changed: on a 10,000-line
// module that is most of a recompile's front end. The edited function is checked and lowered alone
// (incremental.ts), and what it can see of the other functions is their headers; so it is checked in an
// outline of the file where the bodies nothing reads are blanked: replaced by spaces, line breaks kept, so
// that every position, line and column is the file's own.
//
// A body is blanked only when:
//  - its function is a plain declaration with an annotated return type (incremental.ts's `reusable`): the
//    checker then takes its type from the header alone;
//  - no text that stays names the function: not the edited body, not any header, constant, type or class
//    of the file, not a body kept (the lowering reads the bodies of the callbacks and helpers it is given,
//    and of what they call: calleeMayWrite, outerWrites, factories);
//  - it does not name the edited function (the lowering of a factory looks for its calls in every body:
//    onlyMadeInto; only those mentions are looked at, so what such a body calls may still be blanked).
// Names are found as words in the text, comments and strings included (a mention keeps a body: the error
// is on the side of keeping). A file with a `\u` escape anywhere (an identifier may be spelt with one)
// blanks nothing.
//
// What else reads other bodies is module-wide assignment: a module-level `var` assigned in a body. The
// kept lowering had no errors, so no body assigned one (lower.ts refuses it), and incremental.ts refuses
// an edit that assigns one.

/** what the outline needs of a top-level function declaration of the kept text */
export interface OutlinedBody {
  /** the body's text lies strictly between these, in the kept text: just after `{`, at `}` */
  bodyStart: number;
  bodyEnd: number;
  /** a plain declaration with an annotated return type (incremental.ts): its body may be blanked when nothing reads it */
  reusable: boolean;
  /** the words of its body (found once, kept while the body is unchanged) */
  words?: ReadonlySet<string>;
  /** the body blanked (made once) */
  blank?: string;
}

const WORD = /[\p{ID_Start}$_][\p{ID_Continue}$\u200C\u200D]*/gu;

/** the identifiers (and any other words) of `text` */
export function wordsOf(text: string): Set<string> {
  return new Set(text.match(WORD) ?? []);
}

/** how many times each word occurs in `text` */
export function wordCounts(text: string, into = new Map<string, number>()): Map<string, number> {
  for (const w of text.match(WORD) ?? []) into.set(w, (into.get(w) ?? 0) + 1);
  return into;
}

/** `text` with every character but line breaks replaced by a space */
function blanked(text: string): string {
  let out = '';
  let from = 0;
  for (const m of text.matchAll(/\r\n?|[\n\u2028\u2029]/g)) {
    out += ' '.repeat(m.index - from) + m[0];
    from = m.index + m[0].length;
  }
  return out + ' '.repeat(text.length - from);
}

export interface OutlineInput {
  /** the kept text, and the new one: equal but for the edited function's body */
  before: string;
  after: string;
  /** the top-level function declarations of the kept text, by name, in the order of the file */
  bodies: ReadonlyMap<string, OutlinedBody>;
  /** the edited one */
  edited: string;
  /**
   * how many times each word occurs in the kept text outside the blankable bodies (a blankable
   * function's own name once, in its header)
   */
  outside: ReadonlyMap<string, number>;
}

/**
 * The new text with the bodies nothing reads blanked, and the names of the functions blanked (their
 * positions in the new text are their kept ones, moved by the edit's change of length when after it);
 * null when no body can be blanked.
 */
export function outline(input: OutlineInput): { text: string; blanked: string[] } | null {
  const { before, after, bodies, edited, outside } = input;
  if (after.includes('\\u') || before.includes('\\u')) return null;
  const editedBody = bodies.get(edited)!;
  const delta = after.length - before.length;
  const words = (b: OutlinedBody) => (b.words ??= wordsOf(before.slice(b.bodyStart, b.bodyEnd)));
  // the functions whose bodies stay: named outside the blankable bodies or in the edited one, or named
  // in a body that stays; and those naming the edited function (whose own callees need not stay: only
  // their mentions of it are looked at)
  const kept = new Set<string>([edited]);
  const queue: string[] = [];
  const keep = (name: string) => {
    if (kept.has(name) || !bodies.has(name)) return;
    kept.add(name);
    queue.push(name);
  };
  for (const [name, b] of bodies) if (name !== edited && (!b.reusable || (outside.get(name) ?? 0) > 1)) keep(name);
  for (const w of wordsOf(after.slice(editedBody.bodyStart, editedBody.bodyEnd + delta))) keep(w);
  while (queue.length) for (const w of words(bodies.get(queue.pop()!)!)) keep(w);
  for (const [name, b] of bodies) if (!kept.has(name) && words(b).has(edited)) kept.add(name);
  if (kept.size === bodies.size) return null;
  const pieces: string[] = [];
  const names: string[] = [];
  let from = 0;
  for (const [name, b] of bodies) {
    if (kept.has(name)) continue;
    const shift = b.bodyStart > editedBody.bodyStart ? delta : 0;
    pieces.push(after.slice(from, b.bodyStart + shift), (b.blank ??= blanked(before.slice(b.bodyStart, b.bodyEnd))));
    from = b.bodyEnd + shift;
    names.push(name);
  }
  pieces.push(after.slice(from));
  return { text: pieces.join(''), blanked: names };
}
