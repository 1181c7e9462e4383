// The code editor of the site's runnable blocks: CodeMirror 6 with Python highlighting,
// Tab and auto-indent, undo and the usual keys. tools/build-editor.sh bundles this file
// with esbuild into one script the site serves (javascripts/cb-editor.js); run-blocks.js
// loads it and calls window.CBEditor.create for each block it can run.
import { closeBrackets, closeBracketsKeymap } from "@codemirror/autocomplete";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { python } from "@codemirror/lang-python";
import {
  bracketMatching,
  HighlightStyle,
  indentOnInput,
  indentUnit,
  syntaxHighlighting,
} from "@codemirror/language";
import { highlightSelectionMatches, searchKeymap } from "@codemirror/search";
import { EditorState, Prec } from "@codemirror/state";
import { drawSelection, EditorView, highlightSpecialChars, keymap } from "@codemirror/view";
import { tags } from "@lezer/highlight";

// The page's own code colours (mkdocs-material's variables), so an editor looks like
// the static blocks around it, in the light scheme and the dark one.
const colour = (name) => `var(--md-code-hl-${name}-color)`;
const pageColours = HighlightStyle.define([
  { tag: [tags.keyword, tags.controlKeyword, tags.operatorKeyword, tags.definitionKeyword, tags.moduleKeyword], color: colour("keyword") },
  { tag: [tags.string, tags.special(tags.string)], color: colour("string") },
  { tag: [tags.number, tags.bool, tags.null], color: colour("number") },
  { tag: tags.comment, color: colour("comment"), fontStyle: "italic" },
  { tag: [tags.function(tags.variableName), tags.function(tags.definition(tags.variableName))], color: colour("function") },
  { tag: [tags.definition(tags.className), tags.className], color: colour("function") },
  { tag: [tags.operator, tags.punctuation, tags.bracket], color: colour("punctuation") },
  { tag: [tags.self, tags.standard(tags.variableName)], color: colour("constant") },
  { tag: tags.propertyName, color: colour("name") },
]);

/**
 * Make an editor in `parent` holding `doc`.
 * options.label: the accessible name; options.onRun(): Shift+Enter or Ctrl/Cmd+Enter;
 * options.onChange(text): after every edit, with the whole text.
 * Returns {view, text(), replace(text)}.
 */
function create(parent, doc, options = {}) {
  const runKeys = Prec.highest(
    keymap.of([
      { key: "Shift-Enter", run: () => { options.onRun?.(); return true; } },
      { key: "Mod-Enter", run: () => { options.onRun?.(); return true; } },
    ]),
  );
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        runKeys,
        highlightSpecialChars(),
        history(),
        drawSelection(),
        indentUnit.of("    "),
        EditorState.tabSize.of(4),
        indentOnInput(),
        bracketMatching(),
        closeBrackets(),
        highlightSelectionMatches(),
        python(),
        syntaxHighlighting(pageColours),
        EditorView.lineWrapping,
        keymap.of([...closeBracketsKeymap, ...defaultKeymap, ...searchKeymap, ...historyKeymap, indentWithTab]),
        EditorView.contentAttributes.of({
          "aria-label": options.label || "Python code, editable",
          spellcheck: "false",
          autocapitalize: "off",
          autocorrect: "off",
        }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) options.onChange?.(update.state.doc.toString());
        }),
      ],
    }),
  });
  return {
    view,
    text: () => view.state.doc.toString(),
    replace: (text) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } }),
  };
}

window.CBEditor = { create };
