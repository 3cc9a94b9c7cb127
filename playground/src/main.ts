// The playground page: the editor, the generated code, diagnostics, the check and the plot, wired to the
// compiler in a Web Worker (worker.js). Compiles follow typing, debounced; while one runs, edits wait
// for it and then only the latest text is compiled (a slow compile never queues up stale ones).
import type { EditorView } from '@codemirror/view';
import { EXAMPLES } from 'virtual:examples';
import { CompilerClient, type Ask } from './client.js';
import { readOnlyView, setText, showDiagnostics, sourceEditor } from './editor.js';
import { Plot } from './plot.js';
import type { CheckSummary, Generated, Located, Reply } from './protocol.js';
import '../style.css';

const DEBOUNCE_MS = 300;

function $<T extends HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`the page has no #${id}`);
  return el as T;
}

const ui = {
  example: $<HTMLSelectElement>('example'),
  head: $<HTMLSelectElement>('head'),
  status: $('status'),
  tabs: [...document.querySelectorAll<HTMLButtonElement>('#tabs [data-mode]')],
  output: $('output'),
  diagnostics: $<HTMLUListElement>('diagnostics'),
  diagCount: $('diag-count'),
  input: $<HTMLTextAreaElement>('input'),
  check: $<HTMLButtonElement>('check'),
  checkResult: $('check-result'),
  direction: $<HTMLInputElement>('direction'),
  newDirection: $<HTMLButtonElement>('new-direction'),
  plotCaption: $('plot-caption'),
};

const client = new CompilerClient('worker.js');
const plot = new Plot($('plot'));
const output = readOnlyView(ui.output);
let generated: Generated | null = null;
let mode: keyof Generated = 'tangent';
let directionSeed = 1;

function setStatus(state: 'busy' | 'ok' | 'errors' | 'failed', text: string): void {
  ui.status.dataset.state = state;
  ui.status.textContent = text;
}

/** Runs `ask` and hands its reply to `use` only if no later call for the same `slot` was made meanwhile. */
const latest = new Map<string, number>();
async function ask(slot: string, request: Ask, use: (r: Reply) => void): Promise<void> {
  const n = (latest.get(slot) ?? 0) + 1;
  latest.set(slot, n);
  const reply = await client.request(request);
  if (latest.get(slot) === n) use(reply);
}

// ---- compiling as the user types ----

let compiling = false;
let editedMeanwhile = false;
let debounce: ReturnType<typeof setTimeout> | undefined;

const editor: EditorView = sourceEditor($('editor'), EXAMPLES[0]?.source ?? '', () => {
  clearTimeout(debounce);
  debounce = setTimeout(compileNow, DEBOUNCE_MS);
});

async function compileNow(): Promise<void> {
  if (compiling) {
    editedMeanwhile = true;
    return;
  }
  compiling = true;
  editedMeanwhile = false;
  setStatus('busy', 'compiling…');
  const reply = await client.request({ kind: 'compile', source: editor.state.doc.toString(), head: ui.head.value });
  compiling = false;
  // the text changed during the compile: its diagnostics would point into an older text
  if (editedMeanwhile) return void compileNow();
  if (reply.kind === 'compiled') {
    fillHeads(reply.heads, reply.head);
    showProblems(reply.diagnostics);
    ui.direction.placeholder = reply.wrt.length ? `random; or one value per independent: [${reply.wrt.join(', ')}]` : 'random';
    if (reply.code) {
      generated = reply.code;
      showCode();
      setStatus('ok', `compiled ${reply.head} in ${Math.round(reply.ms)} ms`);
      void plotNow();
    } else {
      // the last good code stays, dimmed: it is what the text compiled to before the mistake
      ui.output.classList.add('stale');
      setStatus('errors', `${reply.diagnostics.length} error${reply.diagnostics.length === 1 ? '' : 's'}`);
    }
  } else if (reply.kind === 'failed') setStatus('failed', reply.message);
}

function fillHeads(names: string[], chosen: string): void {
  if ([...ui.head.options].map((o) => o.value).join() !== names.join()) ui.head.replaceChildren(...names.map((n) => new Option(n, n)));
  ui.head.value = chosen;
}

function showCode(): void {
  ui.output.classList.remove('stale');
  for (const t of ui.tabs) t.setAttribute('aria-selected', String(t.dataset.mode === mode));
  setText(output, generated ? generated[mode] : '');
}

function showProblems(ds: Located[]): void {
  showDiagnostics(editor, ds);
  ui.diagCount.textContent = ds.length ? `(${ds.length})` : '';
  ui.diagnostics.replaceChildren(
    ...ds.map((d) => {
      const li = document.createElement('li');
      const at = document.createElement('a');
      at.href = '#';
      at.className = 'at';
      at.textContent = `input.ts:${d.line}:${d.col}`;
      at.onclick = (e) => {
        e.preventDefault();
        const line = editor.state.doc.line(Math.min(d.line, editor.state.doc.lines));
        editor.dispatch({ selection: { anchor: Math.min(line.from + d.col - 1, line.to) }, scrollIntoView: true });
        editor.focus();
      };
      const msg = document.createElement('span');
      msg.className = 'message';
      msg.textContent = ` ${d.message}`;
      li.append(at, msg);
      if (d.hint) {
        const hint = document.createElement('div');
        hint.className = 'hint';
        hint.textContent = `hint: ${d.hint}`;
        li.append(hint);
      }
      return li;
    }),
  );
  if (!ds.length) ui.diagnostics.replaceChildren(Object.assign(document.createElement('li'), { className: 'none', textContent: 'none' }));
}

// ---- check and plot ----

async function checkNow(): Promise<void> {
  ui.check.disabled = true;
  ui.checkResult.replaceChildren(Object.assign(document.createElement('p'), { className: 'verdict', textContent: 'checking…' }));
  await ask('check', { kind: 'check', source: editor.state.doc.toString(), head: ui.head.value, input: ui.input.value }, (r) => {
    if (r.kind === 'checked') showCheck(r.summary);
    else if (r.kind === 'failed') showFailure(ui.checkResult, r.message, r.diagnostics);
  });
  ui.check.disabled = false;
}

function showCheck(s: CheckSummary): void {
  const verdict = Object.assign(document.createElement('p'), { className: `verdict ${s.verdict === 'passed' ? 'pass' : 'fail'}`, textContent: `check ${s.verdict}` });
  const point = Object.assign(document.createElement('p'), { className: 'point', textContent: `at ${s.point}` });
  const table = document.createElement('table');
  for (const [k, v] of s.rows) {
    const tr = table.insertRow();
    tr.insertCell().textContent = k;
    tr.insertCell().textContent = v;
  }
  const messages = s.messages.map((m) => Object.assign(document.createElement('p'), { className: 'fail', textContent: `FAIL: ${m}` }));
  ui.checkResult.replaceChildren(verdict, point, table, ...messages);
}

function showFailure(box: HTMLElement, message: string, ds?: Located[]): void {
  box.replaceChildren(Object.assign(document.createElement('p'), { className: 'verdict fail', textContent: message }));
  if (ds) showProblems(ds);
}

async function plotNow(): Promise<void> {
  await ask('plot', { kind: 'plot', source: editor.state.doc.toString(), head: ui.head.value, input: ui.input.value, direction: ui.direction.value, seed: directionSeed }, (r) => {
    if (r.kind === 'plotted') {
      plot.show(r.plot);
      ui.plotCaption.textContent = `at ${r.plot.point}; along v: ${r.plot.direction}`;
      ui.plotCaption.classList.remove('fail');
    } else if (r.kind === 'failed') {
      plot.clear();
      ui.plotCaption.textContent = `no plot: ${r.message}`;
      ui.plotCaption.classList.add('fail');
    }
  });
}

// ---- the controls ----

function loadExample(i: number): void {
  ui.head.replaceChildren(); // the new text's default head
  ui.input.value = '';
  ui.direction.value = '';
  ui.checkResult.replaceChildren();
  editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: EXAMPLES[i].source } });
  clearTimeout(debounce);
  void compileNow();
}

ui.example.replaceChildren(...EXAMPLES.map((e, i) => new Option(e.title, String(i))));
ui.example.onchange = () => loadExample(Number(ui.example.value));
ui.head.onchange = () => void compileNow();
for (const t of ui.tabs)
  t.onclick = () => {
    mode = t.dataset.mode as keyof Generated;
    showCode();
  };
ui.check.onclick = () => void checkNow();
ui.newDirection.onclick = () => {
  directionSeed++;
  ui.direction.value = '';
  void plotNow();
};
let replot: ReturnType<typeof setTimeout> | undefined;
for (const field of [ui.direction, ui.input])
  field.oninput = () => {
    clearTimeout(replot);
    replot = setTimeout(() => void plotNow(), DEBOUNCE_MS);
  };

void compileNow();
