// The exercise page's editor: CodeMirror 6 over a plain <textarea>, which stays the form field.
// Without JavaScript the textarea works as it is; with it the learner gets Python highlighting,
// a draft autosaved in this browser, and Ctrl/Cmd+Enter to submit. Long lines wrap; Tab indents,
// and Esc then Tab leaves the editor (one Esc, even when it also closes the completion list).
// With no draft, the learner's latest submission is one click away (LeetCode's "retrieve last
// submitted code"): the editor starts from the starter, and "Reset to the starter code" goes back.
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

// "Load my latest submission (#12, 2 minutes ago, WA)", when the editor holds the starter and no
// draft. The code is the page's (the server put the learner's own newest attempt there).
function offerLatest(view, offered, say) {
  const data = document.getElementById("latest-submission");
  const holder = document.getElementById("latest-offer");
  const button = document.getElementById("load-latest");
  if (!data || !holder || !button || !offered) return;
  const latest = JSON.parse(data.textContent);
  const lang = document.documentElement.lang || "en";
  const minutes = Math.round((new Date(latest.created_at) - Date.now()) / 60000);
  const ago = new Intl.RelativeTimeFormat(lang, { numeric: "auto" });
  const when = Math.abs(minutes) < 60 ? ago.format(minutes, "minute")
    : Math.abs(minutes) < 48 * 60 ? ago.format(Math.round(minutes / 60), "hour") : ago.format(Math.round(minutes / 1440), "day");
  button.textContent = button.dataset.text.replace("{id}", latest.id).replace("{ago}", when).replace("{verdict}", latest.verdict);
  holder.hidden = false;
  button.addEventListener("click", () => {
    view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: latest.code } });
    holder.hidden = true;
    say(button.dataset.loaded.replace("{id}", latest.id));
    view.focus();
  });
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
      // Above basicSetup's keymaps (listed first among the highest): there Mod-Enter would insert a
      // blank line, and the completion list takes Esc for itself, so CodeMirror's own "Esc, then
      // Tab leaves" never saw it: arm that here and let the Esc go on to close the list.
      Prec.highest(keymap.of([
        { key: "Mod-Enter", run: () => { form.requestSubmit(); return true; } },
        { key: "Escape", run: (view) => { view.setTabFocusMode(2000); return false; } },
      ])),
      basicSetup,
      python(),
      indentUnit.of("    "),
      EditorView.lineWrapping,
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
  offerLatest(view, draft === null && textarea.value === starter, say);
  document.querySelectorAll("a[data-focus-editor]").forEach((link) => {
    link.addEventListener("click", () => window.setTimeout(() => view.focus(), 0));  // after the jump
  });
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
