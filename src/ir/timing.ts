// Where compile time goes, by pipeline stage (the compile-time benchmark reads it). Off unless a caller
// collects: then each `timed` stage adds its own time, less that of stages timed inside it, so the
// stages of one compile sum to its total.

let open: { stage: string; start: number; inner: number }[] | null = null;
let totals: Map<string, number> | null = null;

/** runs `work`, counting its time (less nested stages') to `stage` when stages are being collected */
export function timed<T>(stage: string, work: () => T): T {
  if (!open) return work();
  const frame = { stage, start: performance.now(), inner: 0 };
  open.push(frame);
  try {
    return work();
  } finally {
    open.pop();
    const spent = performance.now() - frame.start;
    totals!.set(stage, (totals!.get(stage) ?? 0) + spent - frame.inner);
    const outer = open[open.length - 1];
    if (outer) outer.inner += spent;
  }
}

/** runs `work` and returns the milliseconds each stage took in it (time in no stage: 'other') */
export function collectStages<T>(work: () => T): { result: T; stages: Map<string, number> } {
  const saved = { open, totals };
  open = [];
  totals = new Map();
  const start = performance.now();
  try {
    const result = work();
    const stages = totals;
    const staged = [...stages.values()].reduce((a, b) => a + b, 0);
    stages.set('other', performance.now() - start - staged);
    return { result, stages };
  } finally {
    ({ open, totals } = saved);
  }
}
