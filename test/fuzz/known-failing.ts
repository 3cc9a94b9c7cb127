/** Saved fuzz regressions that still fail, with the bug each shows (none at present). A fixed-seed failure
 * whose signature matches one of these is tolerated by test/fuzz.test.ts; the replay runs them as `it.fails`. */
export const KNOWN_FAILING: Record<string, string> = {};
