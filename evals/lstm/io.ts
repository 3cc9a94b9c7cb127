import { evalFn, field, mat, type EvalIO } from '../common.js';
import { dataPath, readEvalFile } from '../paths.js';
import { randomMatrix, uniform } from '../random.js';
import { lstmObjective } from './objective.js';

export interface LstmArgs {
  mainParams: number[][];
  extraParams: number[][];
  state: number[][];
  sequence: number[][];
}

export function prepare(input: unknown): LstmArgs {
  const sequence = mat(field(input, 'sequence'), 'sequence');
  if (sequence.length < 2) throw new Error('lstm: the sequence needs at least 2 characters');
  const b = sequence[0].length;
  const mainParams = mat(field(input, 'main_params'), 'main_params', undefined, 4 * b);
  if (mainParams.length % 2 !== 0 || mainParams.length === 0) throw new Error('lstm: main_params must have 2l rows');
  const l = mainParams.length / 2;
  const extraParams = mat(field(input, 'extra_params'), 'extra_params', 3, b);
  const state = mat(field(input, 'state'), 'state', 2 * l, b);
  for (let t = 0; t < sequence.length; t++) {
    if (sequence[t].length !== b) throw new Error(`lstm: sequence[${t}] has length ${sequence[t].length}, expected ${b}`);
  }
  return { mainParams, extraParams, state, sequence };
}

export const io: EvalIO<LstmArgs> = {
  name: 'lstm',
  prepare,
  primal: {
    objective: evalFn((a: LstmArgs) => lstmObjective(a.mainParams, a.extraParams, a.state, a.sequence), (r: number) => r),
  },
  // jacobian: d objective / d (main_params, extra_params), number[8lb + 3b], row by row, main_params first
  derivatives: ['jacobian'],
};

// ---------------------------------------------------------------------------
// Building the eval's workloads from the shipped text (data/lstm/lstm_text.txt)

/** The text the eval reads (first 8192 code points of the Sonnets). */
export function lstmText(): string {
  return readEvalFile(dataPath('lstm', 'lstm_text.txt'));
}

/**
 * The eval's `sequence` for c characters: the first c code points, each as the binary digits
 * of its code point (most significant first), b = ceil(log2(max code point)) bits.
 */
export function lstmSequence(c: number, text: string = lstmText()): number[][] {
  const codes = Array.from(text).slice(0, c).map((ch) => ch.codePointAt(0) ?? 0);
  if (codes.length < c) throw new Error(`lstm: the text has only ${codes.length} characters, ${c} requested`);
  const b = Math.ceil(Math.log2(Math.max(...codes)));
  return codes.map((code) => {
    const row = new Array<number>(b);
    for (let j = 0; j < b; j++) row[j] = (code >> (b - 1 - j)) & 1;
    return row;
  });
}

/**
 * A full lstm input for l layers and c characters. Parameters are uniform [0, 1) like the
 * eval's (which are unseeded NumPy draws: state, then main_params, then extra_params);
 * here they come from a seeded generator.
 */
export function makeLstmInput(l: number, c: number, seed = 31337): Record<string, number[][]> {
  const sequence = lstmSequence(c);
  const b = sequence[0].length;
  const rand = uniform(seed);
  const state = randomMatrix(2 * l, b, rand);
  const mainParams = randomMatrix(2 * l, 4 * b, rand);
  const extraParams = randomMatrix(3, b, rand);
  return { main_params: mainParams, extra_params: extraParams, state, sequence };
}
