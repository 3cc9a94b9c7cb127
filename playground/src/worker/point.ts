// Where to evaluate: the arguments written as JSON by the user, or random ones sized as the function
// reads them. The same choices as `tsad --check` (src/cli/main.ts: pointFor, inputArgs), made from the
// same library pieces: the size parameters (sizeParams), arrays grown to what the primal reads
// (sizedRandomArgs), JSON checked against the parameter types (jsonMismatch, fromJson).
import { sizeParams } from '../../../src/analysis/ints.js';
import { fromJson, jsonMismatch, readsPastEnd, sizedRandomArgs, typeText } from '../../../src/api/shapes.js';
import { frontEnd } from '../../../src/index.js';
import { memberHeadName } from '../../../src/frontend/classes.js';
import type { Func, Module, Param } from '../../../src/ir/types.js';

/** the head's lowered function (`Class.method` names the function the method became) */
export function headFunc(source: string, head: string): { mod: Module; func: Func } {
  const mod = frontEnd(source);
  const func = mod.funcs.get(memberHeadName(head, (n) => mod.funcs.has(n)));
  if (!func) throw new Error(`'${head}' is not a function of the source`);
  return { mod, func };
}

/** a parameter as the signature writes it, for messages */
const signature = (f: Func) => f.params.map((p) => `${p.name}: ${typeText(p.ty)}`).join(', ');

/** The user's JSON parsed, or a message saying where it is malformed. */
export function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new Error(`the ${what} is not valid JSON: ${(e as Error).message}`);
  }
}

/** A JSON value as the argument of parameter `p`, or an error naming the part that does not fit. */
export function argumentFromJson(v: unknown, p: Param, what: string): unknown {
  const m = jsonMismatch(v, p.ty, p.name);
  if (m) throw new Error(`${what}: ${m}`);
  return fromJson(v, p.ty);
}

/**
 * The point: the JSON `input` (an array of the arguments, or an object keyed by parameter name) when it
 * is not blank, else random arguments drawn with `seed`. `run` evaluates the primal (to size arrays, and
 * to refuse given arrays shorter than what the function reads, which would give NaN).
 */
export function pointFor(mod: Module, head: Func, input: string, seed: number, run: (args: unknown[]) => unknown): unknown[] {
  if (!input.trim()) {
    const sizes = sizeParams(mod, head.name);
    return sizedRandomArgs(head.params.map((p) => p.ty), seed, new Set(head.params.flatMap((p, j) => (sizes.has(p.name) ? [j] : []))), run);
  }
  const data = parseJson(input, 'input');
  let values: unknown[];
  if (Array.isArray(data)) values = data;
  else if (typeof data === 'object' && data !== null) {
    const o = data as Record<string, unknown>;
    const unknown = Object.keys(o).find((k) => !head.params.some((p) => p.name === k));
    if (unknown) throw new Error(`the input names '${unknown}', which is not a parameter of ${head.name}(${signature(head)})`);
    values = head.params.map((p) => o[p.name]);
  } else throw new Error(`the input must be a JSON array of the arguments or an object keyed by parameter name: ${head.name}(${signature(head)})`);
  if (values.length > head.params.length) throw new Error(`the input gives ${values.length} arguments, but ${head.name}(${signature(head)}) takes ${head.params.length}`);
  const args = head.params.map((p, j) => {
    if (values[j] === undefined) {
      if (p.def || p.optional) return undefined;
      throw new Error(`the input gives no value for '${p.name}': ${head.name}(${signature(head)})`);
    }
    return argumentFromJson(values[j], p, 'input');
  });
  while (args.length && args[args.length - 1] === undefined) args.pop();
  for (const [place, n] of readsPastEnd(args, run)) {
    const j = Number(/^\d+/.exec(place)![0]);
    throw new Error(`the input is too short: '${head.name}' reads ${head.params[j].name}${place.slice(String(j).length).replace(/\[\]/g, '[…]')}[${n - 1}]; make it at least ${n} long`);
  }
  return args;
}
