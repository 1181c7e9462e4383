// The code editor of the site's runnable blocks: CodeMirror 6 with Python highlighting,
// Tab and auto-indent, undo and the usual keys. Tab inserts spaces at the cursor (to the
// next multiple of four) and indents a selection, as a code editor does; Shift+Tab
// takes a level off. A `# (1)!` comment, which the page shows as a note the reader can
// open (Material's code annotations), shows as that note's numbered button here too. tools/build-editor.sh bundles this file
// with esbuild into one script the site serves (javascripts/cb-editor.js); run-blocks.js
// loads it and calls window.CBEditor.create for each block it can run.
import { closeBrackets, closeBracketsKeymap } from "@codemirror/autocomplete";
import { defaultKeymap, history, historyKeymap, indentLess, indentMore } from "@codemirror/commands";
import { python } from "@codemirror/lang-python";
import {
  bracketMatching,
  HighlightStyle,
  indentOnInput,
  indentUnit,
  syntaxHighlighting,
} from "@codemirror/language";
import { highlightSelectionMatches, searchKeymap } from "@codemirror/search";
import { EditorSelection, EditorState, Prec, RangeSetBuilder } from "@codemirror/state";
import {
  Decoration,
  drawSelection,
  EditorView,
  highlightSpecialChars,
  keymap,
  MatchDecorator,
  ViewPlugin,
  WidgetType,
} from "@codemirror/view";
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

const INDENT = 4;

// Tab: with nothing selected, spaces at each cursor up to the next multiple of four
// columns (a line's start included, so an empty line is indented too); with a
// selection, one more level on every line it touches.
function tabAtCursor({ state, dispatch }) {
  if (state.selection.ranges.some((range) => !range.empty)) return indentMore({ state, dispatch });
  dispatch(state.update(state.changeByRange((range) => {
    const line = state.doc.lineAt(range.head);
    const column = range.head - line.from;
    const spaces = " ".repeat(INDENT - (column % INDENT));
    return {
      changes: { from: range.head, insert: spaces },
      range: EditorSelection.cursor(range.head + spaces.length),
    };
  }), { scrollIntoView: true, userEvent: "input" }));
  return true;
}

// Escape, then Tab, leaves the editor (CodeMirror's way out for a keyboard reader, which
// the page names under the editor). CodeMirror arms it only when no key binding takes the
// Escape, and the default keymap takes it to reduce a selection to its cursor: with text
// selected, the Tab after it indented the selection instead. This arms it for the next two
// seconds first, and lets the Escape go on to the other bindings.
function leaveOnTab(view) {
  view.setTabFocusMode(2000);
  return false;
}

// A code annotation's note: a numbered button in place of its `# (N)!` comment, which
// opens the note's text (the page's own HTML for it) under the line.
class NoteWidget extends WidgetType {
  constructor(number, html) {
    super();
    this.number = number;
    this.html = html;
  }

  eq(other) { return other.number === this.number && other.html === this.html; }

  toDOM() {
    const holder = document.createElement("span");
    holder.className = "cb-note";
    const button = document.createElement("button");
    button.type = "button";
    button.className = "cb-note__button";
    button.textContent = this.number;
    button.setAttribute("aria-expanded", "false");
    button.setAttribute("aria-label", `Note ${this.number}`);
    const text = document.createElement("span");
    text.className = "cb-note__text md-typeset";
    text.setAttribute("role", "note");
    text.hidden = true;
    text.innerHTML = this.html ?? `Note ${this.number}`;
    button.addEventListener("click", (event) => {
      event.preventDefault();
      text.hidden = !text.hidden;
      button.setAttribute("aria-expanded", String(!text.hidden));
    });
    holder.append(button, text);
    return holder;
  }

  ignoreEvent() { return true; }
}

function notesPlugin(notes) {
  const matcher = new MatchDecorator({
    regexp: /# \((\d+)\)!/g,
    decoration: (match) => Decoration.replace({
      widget: new NoteWidget(match[1], notes[Number(match[1]) - 1]),
    }),
  });
  return ViewPlugin.fromClass(class {
    constructor(view) { this.decorations = matcher.createDeco(view); }
    update(update) { this.decorations = matcher.updateDeco(update, this.decorations); }
  }, {
    decorations: (plugin) => plugin.decorations,
    provide: (plugin) => EditorView.atomicRanges.of(
      (view) => view.plugin(plugin)?.decorations ?? Decoration.none),
  });
}

// A line's indentation, marked so that the page keeps it whole on the line's first row
// (run-blocks.css gives it `white-space: pre`): a long line would otherwise wrap right
// after it, leaving the indentation alone on a row and the code on the next. The line
// itself carries the indentation's width (`--cb-lead`), so that its continuation is
// indented past it: under the code, never left of it as if a block had ended.
const indentation = Decoration.mark({ class: "cb-indent" });
const leads = new Map(); // a width in columns -> its line decoration
const lead = (columns) => {
  if (!leads.has(columns)) {
    leads.set(columns, Decoration.line({ attributes: { style: `--cb-lead: ${columns}ch` } }));
  }
  return leads.get(columns);
};

function indentationMarks(view) {
  const marks = new RangeSetBuilder();
  for (const { from, to } of view.visibleRanges) {
    for (let at = from; at <= to;) {
      const line = view.state.doc.lineAt(at);
      const spaces = /^[ \t]+/.exec(line.text);
      if (spaces && spaces[0].length < line.length) {
        marks.add(line.from, line.from, lead(spaces[0].length)); // a line's decoration first
        marks.add(line.from, line.from + spaces[0].length, indentation);
      }
      at = line.to + 1;
    }
  }
  return marks.finish();
}

// A doctest's parts (a block whose first line is a `>>>` prompt): its prompts (`>>> `, and
// `... ` under one) marked `cb-prompt`, its output lines `cb-output`, so that they take
// the page's colours for a prompt and an output (run-blocks.css), not those of the Python
// the editor otherwise reads them as (`>>>` an operator, `(3.77, 3.99)` numbers).
const promptMark = Decoration.mark({ class: "cb-prompt" });
const outputLine = Decoration.line({ class: "cb-output" });
const PROMPT = /^(>>>|\.\.\.)( |$)/;

function doctestMarks(doc) {
  const marks = new RangeSetBuilder();
  if (!doc.line(1).text.startsWith(">>>")) return marks.finish();
  let after = false; // the line before was a prompt's, or a continuation of one
  for (let number = 1; number <= doc.lines; number++) {
    const line = doc.line(number);
    const prompt = PROMPT.exec(line.text);
    after = Boolean(prompt) && (after || prompt[1] === ">>>");
    if (after) marks.add(line.from, line.from + prompt[0].length, promptMark);
    else if (line.text.trim()) marks.add(line.from, line.from, outputLine);
  }
  return marks.finish();
}

const doctestPlugin = ViewPlugin.fromClass(class {
  constructor(view) { this.decorations = doctestMarks(view.state.doc); }
  update(update) {
    if (update.docChanged) this.decorations = doctestMarks(update.state.doc);
  }
}, { decorations: (plugin) => plugin.decorations });

const indentationPlugin = ViewPlugin.fromClass(class {
  constructor(view) { this.decorations = indentationMarks(view); }
  update(update) {
    if (update.docChanged || update.viewportChanged) this.decorations = indentationMarks(update.view);
  }
}, { decorations: (plugin) => plugin.decorations });

/**
 * Make an editor in `parent` holding `doc`.
 * options.label: the accessible name; options.onRun(): Shift+Enter or Ctrl/Cmd+Enter;
 * options.onChange(text): after every edit, with the whole text;
 * options.notes: the HTML of the block's code annotations, note 1 first.
 * Returns {view, text(), replace(text)}.
 */
function create(parent, doc, options = {}) {
  const runKeys = Prec.highest(
    keymap.of([
      { key: "Shift-Enter", run: () => { options.onRun?.(); return true; } },
      { key: "Mod-Enter", run: () => { options.onRun?.(); return true; } },
      { key: "Escape", run: leaveOnTab },
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
        indentationPlugin,
        doctestPlugin,
        notesPlugin(options.notes || []),
        keymap.of([
          ...closeBracketsKeymap, ...defaultKeymap, ...searchKeymap, ...historyKeymap,
          { key: "Tab", run: tabAtCursor, shift: indentLess },
        ]),
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
