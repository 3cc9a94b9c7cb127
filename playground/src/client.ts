// The page's side of the compiler worker: requests as promises, and a watchdog. The user's code runs in
// the worker (checks and plots evaluate it), so a loop that never ends would leave the worker busy for
// good: a request that takes too long ends the worker and starts a fresh one.
import type { Reply, Request } from './protocol.js';

/** `Omit` applied to each member of a union (plain `Omit` would merge the kinds into one) */
type OmitEach<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** a request without its id: the client numbers them */
export type Ask = OmitEach<Request, 'id'>;

/** long enough for the first compile (the worker parses TypeScript's lib files then) on a slow machine */
const TIMEOUT_MS = 30_000;

export class CompilerClient {
  private worker!: Worker;
  private nextId = 1;
  private pending = new Map<number, { resolve: (r: Reply) => void; timer: ReturnType<typeof setTimeout> }>();

  constructor(private readonly url: string) {
    this.start();
  }

  private start(): void {
    this.worker = new Worker(this.url);
    this.worker.onmessage = (e: MessageEvent<Reply>) => {
      const p = this.pending.get(e.data.id);
      if (!p) return;
      clearTimeout(p.timer);
      this.pending.delete(e.data.id);
      p.resolve(e.data);
    };
    this.worker.onerror = (e) => this.restart(`the compiler worker failed: ${e.message}`);
  }

  /** ends the worker: every request still waiting fails with `why` */
  private restart(why: string): void {
    this.worker.terminate();
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.resolve({ id, kind: 'failed', message: why });
    }
    this.pending.clear();
    this.start();
  }

  request(ask: Ask): Promise<Reply> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.restart(`stopped after ${TIMEOUT_MS / 1000} s (a loop that never ends?): the compiler was restarted`), TIMEOUT_MS);
      this.pending.set(id, { resolve, timer });
      this.worker.postMessage({ ...ask, id } as Request);
    });
  }
}
