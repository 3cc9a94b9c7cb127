// A source map (v3) of printed code: each generated line that came from a statement maps, at its first
// non-blank column, to that statement's position in the user's source (statement-level granularity;
// derivative statements sit in the primal statement they differentiate, see Printer.lineOrigins).
// The VLQ encoding is @jridgewell/gen-mapping's, the library bundlers' toolchains use.
import { GenMapping, maybeAddMapping, setSourceContent, toEncodedMap } from '@jridgewell/gen-mapping';
import type { Loc } from '../ir/types.js';

export interface SourceMapV3 {
  version: 3;
  file?: string | null;
  sources: (string | null)[];
  sourcesContent?: (string | null)[];
  names: string[];
  mappings: string;
  sourceRoot?: string;
  ignoreList?: number[];
}

/**
 * The map of `code` from the origin of each of its lines (undefined: a line of no statement), with the
 * text of every source file that a line maps to in `sourcesContent`.
 */
export function sourceMapOf(code: string, origins: readonly (Loc | undefined)[], sources: ReadonlyMap<string, string>, file?: string): SourceMapV3 {
  const map = new GenMapping(file === undefined ? {} : { file });
  const lines = code.split('\n');
  for (let i = 0; i < origins.length && i < lines.length; i++) {
    const o = origins[i];
    if (!o) continue;
    const column = lines[i].length - lines[i].trimStart().length;
    maybeAddMapping(map, { generated: { line: i + 1, column }, source: o.file, original: { line: o.line, column: Math.max(0, o.col - 1) } });
    const text = sources.get(o.file);
    if (text !== undefined) setSourceContent(map, o.file, text);
  }
  return toEncodedMap(map) as SourceMapV3;
}
