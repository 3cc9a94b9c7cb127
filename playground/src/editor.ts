// The CodeMirror 6 views: the source editor (TypeScript, diagnostics in the gutter and underlined) and
// the read-only view of the generated code.
import { javascript } from '@codemirror/lang-javascript';
import { lintGutter, setDiagnostics, type Diagnostic } from '@codemirror/lint';
import { EditorState } from '@codemirror/state';
import { EditorView, basicSetup } from 'codemirror';
import type { Located } from './protocol.js';

export function sourceEditor(parent: HTMLElement, doc: string, onChange: () => void): EditorView {
  return new EditorView({
    parent,
    doc,
    extensions: [
      basicSetup,
      javascript({ typescript: true }),
      // (panes are half the window wide: long lines wrap rather than scroll out of sight)
      EditorView.lineWrapping,
      lintGutter(),
      EditorView.updateListener.of((u) => {
        if (u.docChanged) onChange();
      }),
    ],
  });
}

export function readOnlyView(parent: HTMLElement): EditorView {
  return new EditorView({
    parent,
    extensions: [basicSetup, javascript({ typescript: true }), EditorView.lineWrapping, EditorState.readOnly.of(true), EditorView.editable.of(false)],
  });
}

export function setText(view: EditorView, text: string): void {
  if (view.state.doc.toString() !== text) view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
}

/**
 * Shows tsad's diagnostics in the editor. tsad locates a diagnostic by line and column only: the
 * underline spans the identifier or number starting there (one character if none does).
 */
export function showDiagnostics(view: EditorView, ds: readonly Located[]): void {
  const doc = view.state.doc;
  const marks: Diagnostic[] = ds.map((d) => {
    const line = doc.line(Math.min(Math.max(d.line, 1), doc.lines));
    const from = Math.min(line.from + Math.max(d.col - 1, 0), line.to);
    const word = /^[\w$.]+/.exec(line.text.slice(from - line.from))?.[0].length ?? 0;
    return { from, to: Math.min(from + Math.max(word, 1), doc.length), severity: 'error', message: d.hint ? `${d.message}\nhint: ${d.hint}` : d.message };
  });
  view.dispatch(setDiagnostics(view.state, marks));
}
