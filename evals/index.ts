// All eval adapters by name.
import { io as ba } from './ba/io.js';
import { io as det } from './det/io.js';
import { io as gmm } from './gmm/io.js';
import { io as hello } from './hello/io.js';
import { io as ht } from './ht/io.js';
import { io as kmeans } from './kmeans/io.js';
import { io as llsq } from './llsq/io.js';
import { io as lse } from './lse/io.js';
import { io as lstm } from './lstm/io.js';
import { io as ode } from './ode/io.js';
import { io as particle } from './particle/io.js';
import { io as saddle } from './saddle/io.js';

export { ba, det, gmm, hello, ht, kmeans, llsq, lse, lstm, ode, particle, saddle };

/** Eval names in the README's suggested order of implementation. */
export const evalNames = ['hello', 'lse', 'llsq', 'det', 'ode', 'gmm', 'kmeans', 'lstm', 'ba', 'ht', 'saddle', 'particle'] as const;
export type EvalName = (typeof evalNames)[number];
