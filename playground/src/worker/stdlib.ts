// TypeScript's standard library for the compiler in the worker: there is no file system here, so the
// build embeds the lib files tsad type-checks against (playground/build.mjs, module 'virtual:stdlib').
import { LIBS } from 'virtual:stdlib';
import { setLibReader } from '../../../src/index.js';

export function installStdlib(): void {
  setLibReader((name) => LIBS[name]);
}
