// The exercise page's editor: CodeMirror 6 over a plain <textarea>, which stays the form field.
// Without JavaScript the textarea works as it is; with it the learner gets Python highlighting,
// a draft autosaved in this browser, and Ctrl/Cmd+Enter to submit.
import { EditorView, basicSetup } from "codemirror";
import { keymap } from "@codemirror/view";
import { Prec } from "@codemirror/state";
import { indentUnit } from "@codemirror/language";
import { indentWithTab } from "@codemirror/commands";
import { python } from "@codemirror/lang-python";

const SAVE_DELAY_MS = 400;

function draftStore(key) {
  // localStorage can be missing or full (private windows): a draft is a convenience, never required.
  return {
    load() { try { return window.localStorage.getItem(key); } catch { return null; } },
    save(text) { try { window.localStorage.setItem(key, text); return true; } catch { return false; } },
    clear() { try { window.localStorage.removeItem(key); } catch { /* nothing to clear */ } },
  };
}

function mount(textarea) {
  const form = textarea.form;
  const starter = textarea.dataset.starter ?? textarea.value;
  const store = draftStore(textarea.dataset.draftKey);
  const status = document.getElementById(textarea.dataset.draftStatus);
  const say = (text) => { if (status) status.textContent = text; };

  const draft = store.load();
  const restored = draft !== null && draft !== textarea.value;
  if (restored) textarea.value = draft;

  let timer = null;
  const view = new EditorView({
    doc: textarea.value,
    extensions: [
      basicSetup,
      python(),
      indentUnit.of("    "),
      // Above basicSetup's keymap, where Mod-Enter would insert a blank line.
      Prec.highest(keymap.of([{ key: "Mod-Enter", run: () => { form.requestSubmit(); return true; } }])),
      keymap.of([indentWithTab]),
      // tabindex says "focusable" to assistive checks too: the editor is reached with the Tab key.
      EditorView.contentAttributes.of({ "aria-label": textarea.getAttribute("aria-label") || "code", tabindex: "0" }),
      // CodeMirror owns the class attribute of its element: add ours through it, or it is dropped.
      EditorView.editorAttributes.of({ class: "code-editor" }),
      EditorView.updateListener.of((update) => {
        if (!update.docChanged) return;
        textarea.value = update.state.doc.toString();
        clearTimeout(timer);
        timer = setTimeout(() => say(store.save(textarea.value) ? textarea.dataset.textSaved : ""), SAVE_DELAY_MS);
      }),
    ],
  });
  textarea.hidden = true;
  textarea.after(view.dom);
  textarea.editorView = view;  // for tests and the page's other buttons
  if (restored) say(textarea.dataset.textRestored);

  form.addEventListener("submit", () => { textarea.value = view.state.doc.toString(); });
  const reset = document.getElementById(textarea.dataset.resetButton);
  if (reset) {
    reset.hidden = false;
    reset.addEventListener("click", () => {
      if (!window.confirm(reset.dataset.confirm)) return;
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: starter } });
      clearTimeout(timer);  // the starter is no draft: the change just made saves nothing
      store.clear();
      say("");
    });
  }
}

document.querySelectorAll("textarea[data-editor]").forEach(mount);
