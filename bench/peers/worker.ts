// One peer's child process for the peers benchmark (forked by run.ts with an IPC channel). It loads
// only its own peer's code, builds the workload inputs itself (deterministic), checks the value and
// derivative against the reference, and times calls on request. Not compiler input.
import { join } from 'node:path';
import { repoRoot } from '../../evals/paths.js';
import { errors, findSize, makeProblem, type Problem } from './problems.js';
import type { InitReply, PeerImpl, PeerInstance, PeerName, Reply, Request, RunReply, SetupReply, VariantName } from './protocol.js';

let impl: PeerImpl | null = null;
let inst: PeerInstance | null = null;
let problem: Problem | null = null;

async function load(peer: PeerName, tfjsBundle: string): Promise<PeerImpl> {
  switch (peer) {
    case 'tsad':
      return (await import('./impl/tsad.js')).peer;
    case 'hand-written':
      return (await import('./impl/handwritten.js')).peer;
    case 'fd-central':
      return (await import('./impl/fd.js')).peer;
    case 'tfjs-cpu':
    case 'tfjs-wasm': {
      const m = await import('./impl/tfjs.js');
      return m.makePeer(peer === 'tfjs-cpu' ? 'cpu' : 'wasm', tfjsBundle, join(repoRoot, 'node_modules/@tensorflow/tfjs-backend-wasm/dist/'));
    }
    case 'jax-js':
      return (await import('./impl/jax.js')).peer;
  }
}

function fn(v: VariantName): () => number {
  if (!inst) throw new Error('no workload set up');
  const f = v === 'grad' ? inst.grad : v === 'primal' ? inst.primal : inst.gradConst;
  if (!f) throw new Error(`variant ${v} not available`);
  return f;
}

let sink = 0;

async function handle(req: Request): Promise<unknown> {
  switch (req.type) {
    case 'init': {
      impl = await load(req.peer, req.tfjsBundle);
      const r: InitReply = { info: await impl.init() };
      return r;
    }
    case 'setup': {
      if (!impl) throw new Error('not initialised');
      inst?.dispose?.();
      inst = null;
      problem = null;
      const t0 = performance.now();
      problem = makeProblem(findSize(req.eval, req.key));
      inst = await impl.setup(problem, { fdBudgetMs: req.fdBudgetMs });
      const setupMs = performance.now() - t0;
      const firstCallMs: SetupReply['firstCallMs'] = {};
      let t = performance.now();
      inst.grad();
      firstCallMs.grad = performance.now() - t;
      if (inst.primal) {
        t = performance.now();
        inst.primal();
        firstCallMs.primal = performance.now() - t;
      }
      if (inst.gradConst) {
        t = performance.now();
        inst.gradConst();
        firstCallMs['grad-const'] = performance.now() - t;
      }
      const c = inst.check();
      const r: SetupReply = {
        variants: ['grad', ...(inst.primal ? ['primal' as const] : []), ...(inst.gradConst ? ['grad-const' as const] : [])],
        independents: problem.independents,
        errors: errors(problem, c.value, c.grad, c.columns),
        firstCallMs,
        setupMs,
        gradScale: inst.gradScale ?? 1,
        notes: inst.notes ?? [],
      };
      return r;
    }
    case 'run': {
      const f = fn(req.variant);
      const t0 = performance.now();
      for (let i = 0; i < req.reps; i++) sink += f() * 1e-300;
      const rawMs = (performance.now() - t0) / req.reps;
      const r: RunReply = { ms: rawMs * (req.variant === 'grad' ? (inst?.gradScale ?? 1) : 1), rawMs, checksum: sink };
      return r;
    }
    case 'dispose': {
      inst?.dispose?.();
      inst = null;
      problem = null;
      return {};
    }
  }
}

// requests are handled one at a time, in order
let chain: Promise<void> = Promise.resolve();
process.on('message', (m: Request) => {
  chain = chain.then(async () => {
    let reply: Reply;
    try {
      reply = { id: m.id, ok: true, result: await handle(m) };
    } catch (e) {
      reply = { id: m.id, ok: false, error: e instanceof Error ? `${e.message}\n${e.stack ?? ''}`.slice(0, 4000) : String(e) };
    }
    process.send!(reply);
  });
});
process.on('disconnect', () => process.exit(0));
