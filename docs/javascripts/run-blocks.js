// Run the page's Python blocks in the reader's browser. docsite/browser_run.py marks each
// Python block with data-cb-order (and data-cb-why when it cannot run) and points
// data-cb-data at the page's block list. Each block that can run becomes a code editor
// (CodeMirror, javascripts/cb-editor.js); the reader's edits and the exercises that
// passed are kept in this browser (localStorage). Python loads on the first Run, never
// before: a Web Worker (run-worker.mjs) starts Pyodide from the site itself.
(() => {
  "use strict";
  const ROOT = new URL("../", document.currentScript.src).href;
  const state = {
    worker: null, ready: null, data: null, ran: new Set(), busy: null, pending: new Map(), next: 0,
    current: null, // {order, text}: the block Python was last given, and its code
    stopped: null, // {order, text}: the block running when the reader pressed Stop
  };

  const el = (tag, cls, text) => {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  };

  function blockCode(div) { return div.querySelector("pre > code"); }

  // The block's source as the page's Markdown has it. Material turns a `# (1)!` comment
  // into an annotation marker whose tooltip holds the note's text, at a moment of its
  // own: read after that, textContent would hand the note's words to Python.
  function codeText(code) {
    const copy = code.cloneNode(true);
    for (const note of copy.querySelectorAll(".md-annotation")) {
      const index = note.querySelector("[data-md-annotation-id]");
      note.replaceWith(`# (${index ? index.dataset.mdAnnotationId : ""})!`);
    }
    return copy.textContent;
  }

  // A block's result panel goes under the output the page shows for it: a chapter's
  // output block, or a notebook cell's output, out of the cell's code box (inside it the
  // panel's words read as the cell's code, in the code's font and colour).
  function resultPanel(div) {
    if (div._cbPanel) return div._cbPanel;
    let anchor = div;
    const after = div.nextElementSibling;
    const cell = div.closest(".jp-Cell");
    if (cell) {
      anchor = cell.querySelector(":scope > .jp-Cell-outputWrapper")
        || div.closest(".jp-Cell-inputWrapper") || div;
    } else if (after && after.classList.contains("language-output")) anchor = after;
    const panel = el("div", "cb-run-result");
    panel.setAttribute("role", "status");
    panel.setAttribute("aria-live", "polite");
    anchor.after(panel);
    div._cbPanel = panel;
    return panel;
  }

  function say(div, text) {
    const panel = resultPanel(div);
    panel.replaceChildren(el("p", "cb-run-note", text));
    panel.dataset.status = "busy";
  }

  // What a run of a block says: its status (the panel's data-cb-status) and words.
  // An exercise's checker block is judged by the verdict its checker returned (the runner
  // records it from the checker itself, whatever the block printed); it counts as the
  // reader's pass only on the reader's own code, never on the page's first attempt or a
  // solution. Every other block is judged by CI's output.
  function status(div, result) {
    if (result.error) return "error";
    if (div.dataset.cbChecker === "true") {
      if (result.verdict === "needs_work") return "needs_work";
      if (result.verdict !== "pass") return "noverdict";
      if (div.dataset.cbSolution === "true") return "solution";
      return result.own ? "pass" : "shipped";
    }
    if (result.match === true) return "match";
    if (result.match === false) return "mismatch";
    return "ran";
  }

  function show(div, result, note) {
    const panel = resultPanel(div);
    panel.replaceChildren();
    if (note) panel.append(el("p", "cb-run-note", note));
    if (result.prompted && result.prompted.length) {
      const plural = result.prompted.length > 1 ? "s" : "";
      panel.append(el("p", "cb-run-note", `Ran as code the line${plural} you typed without a >>> prompt:`));
      panel.append(el("pre", "cb-run-prompted", result.prompted.join("\n")));
    }
    const shown = status(div, result);
    const checkers = [...new Set(result.checkers || [])].join(", ");
    const words = {
      pass: `✓ PASS: ${checkers} accepts your answer.`,
      solution: `✓ PASS: ${checkers} accepts this, the page's own solution. Your answer, in the exercise's block, is what marks the exercise passed.`,
      shipped: `✓ PASS, but on code this page ships (its first attempt or a solution): ${checkers} accepts it. Write your own answer to mark the exercise passed.`,
      needs_work: `Not yet: ${checkers} says NEEDS_WORK. What it found is below; change the code and run it again.`,
      noverdict: "No checker ran, so there is no verdict: call the exercise's checker on your answer (printing PASS is not a pass).",
      match: "✓ Matches the output CI checked.",
      mismatch: "✗ Does not match the output CI checked:",
      error: "The block raised an error:",
      ran: "Ran (CI compares no output for this block).",
    };
    if (div.classList.contains("highlight-ipynb")) {
      // a notebook cell: what it is compared with is what the build's run of it printed
      words.match = "✓ Matches what this cell printed when the build ran the notebook (shown below).";
      words.mismatch = "✗ Does not match what this cell printed when the build ran the notebook:";
      words.ran = "Ran (when the build ran the notebook, this cell showed a value or a plot, which this runner does not compare).";
    }
    panel.dataset.status = shown;
    if (result.match === true || result.match === false) panel.dataset.match = String(result.match);
    else delete panel.dataset.match;
    panel.append(el("p", "cb-run-verdict", words[shown]));
    if (shown === "mismatch" && result.diff) panel.append(el("pre", "cb-run-diff", result.diff));
    if (result.output) {
      panel.append(el("p", "cb-run-label", "Output"));
      panel.append(el("pre", "cb-run-output", result.output));
    }
    if (result.error) panel.append(el("pre", "cb-run-traceback", result.error));
    if (result.stderr) {
      // warnings and the like: shown under a label of their own, never compared
      panel.append(el("p", "cb-run-label", "Printed to standard error (not compared)"));
      panel.append(el("pre", "cb-run-stderr", result.stderr));
    }
  }

  function startWorker() {
    const worker = new Worker(new URL("javascripts/run-worker.mjs", ROOT), { type: "module" });
    state.worker = worker;
    state.ready = new Promise((resolve, reject) => {
      worker.onmessage = (event) => {
        const message = event.data;
        if (message.type === "ready") {
          // "snapshot" or "cold": how this page's Python started (run-worker.mjs says why)
          document.documentElement.dataset.cbPython = message.python;
          resolve(message.seconds);
        }
        else if (message.type === "failed" && message.id === undefined) reject(new Error(message.message));
        else {
          const waiting = state.pending.get(message.id);
          state.pending.delete(message.id);
          if (!waiting) return;
          if (message.type === "failed") waiting.reject(new Error(message.message));
          else waiting.resolve(message);
        }
      };
      worker.onerror = (event) => reject(new Error(event.message || "the Python worker failed to start"));
    });
    worker.postMessage({ type: "init", root: ROOT });
  }

  function stopWorker(reason) {
    if (state.worker) state.worker.terminate();
    state.worker = null;
    state.ready = null;
    state.ran.clear();
    for (const waiting of state.pending.values()) waiting.reject(new Error(reason));
    state.pending.clear();
  }

  // The codes the page ships for a checker block: its own, and every solution's. A
  // notebook's checker cell grades the functions the reader writes in the cells above it,
  // not code in itself: once one of those holds the reader's edit, its run is the reader's.
  function shipped(block) {
    if (!block.checker || !state.data) return [];
    const cell = divOf(block.order);
    if (cell && cell.classList.contains("highlight-ipynb") && editedAbove(block.order)) return [];
    return [block.source, ...state.data.blocks.filter((b) => b.solution).map((b) => b.source)];
  }

  // True when a block before `order` holds the reader's edit (`showEdited` marks it).
  function editedAbove(order) {
    return [...document.querySelectorAll("div[data-cb-order].cb-edited")]
      .some((div) => Number(div.dataset.cbOrder) < order);
  }

  function send(block, source) {
    const id = state.next++;
    const current = { order: block.order, text: source };
    state.current = current;
    return new Promise((resolve, reject) => {
      state.pending.set(id, { resolve, reject });
      state.worker.postMessage({
        type: "run", id, order: block.order, source, doctest: block.doctest,
        expected: block.expected, files: block.files, packages: block.packages || [],
        checker: Boolean(block.checker), shipped: shipped(block),
      });
    }).finally(() => {
      if (state.current === current) state.current = null;
    });
  }

  async function loadData(div) {
    if (!state.data) {
      const response = await fetch(new URL(div.dataset.cbData, document.baseURI));
      if (!response.ok) throw new Error(`the page's block list: HTTP ${response.status}`);
      state.data = await response.json();
    }
    return state.data;
  }

  const divOf = (order) => document.querySelector(`div[data-cb-order="${order}"]`);

  function setBusy(div, busy) {
    for (const button of document.querySelectorAll("button.cb-run")) {
      const mine = button._cbBlock === div;
      button.disabled = busy && !mine;
      if (mine) {
        button.textContent = busy ? "Stop" : "Run";
        button.classList.toggle("cb-stop", busy);
        button.setAttribute("aria-label", busy ? "Stop this block (restarts Python)" : button._cbLabel);
      }
    }
    state.busy = busy ? div : null;
  }

  function stop(div) {
    // Remember what was running (this block, or an earlier one it ran first; nothing while
    // Python was still starting): a later Run does not run it again on the way (it would
    // hang the same way), and says so.
    state.stopped = state.current;
    stopWorker("stopped");
    setBusy(div, false);
    let words = "Stopped. Python was restarted: the next Run starts it again and reruns the earlier blocks";
    if (state.stopped) {
      const which = state.stopped.order === Number(div.dataset.cbOrder)
        ? "this one" : `block ${state.stopped.order + 1}, which was running`;
      words += `, except ${which} while its code is unchanged (run it yourself to try it again)`;
    }
    const panel = resultPanel(div);
    panel.dataset.status = "stopped";
    panel.replaceChildren(el("p", "cb-run-verdict", `${words}.`));
  }

  // True when `block` is the one the reader stopped, with the code it had then.
  function wasStopped(block, div) {
    return Boolean(state.stopped && div && state.stopped.order === block.order
      && state.stopped.text === blockSource(div));
  }

  // Run block `div`; a click on its button while it runs stops it. `fromKeys`: the reader
  // pressed Shift+Enter (or Ctrl/Cmd+Enter) in the code, which never stops a run: a
  // second press while Python is still starting must not throw the first run away.
  async function run(div, fromKeys = false) {
    if (state.busy === div) {
      if (!fromKeys) stop(div);
      return;
    }
    if (state.busy) return;
    setBusy(div, true);
    try {
      if (!state.worker) {
        say(div, "Starting Python in this page (the first run loads about 20 MB)…");
        startWorker(); // while the page's block list loads
      }
      const data = await loadData(div);
      await state.ready;
      const target = Number(div.dataset.cbOrder);
      const { earlier, skipped } = await runEarlier(data, target, div);
      const block = data.blocks[target];
      const again = wasStopped(block, div);
      // the panel says the block runs, never what its last run found: that was other code
      if (again) say(div, `Running block ${target + 1} again, which you stopped last time (Stop ends it)…`);
      else say(div, `Running block ${target + 1}…`);
      const result = await send(block, blockSource(div));
      state.ran.add(target);
      if (again) state.stopped = null;
      const notes = [];
      if (earlier.length) {
        notes.push(`First ran the earlier block${earlier.length > 1 ? "s" : ""} ${earlier.join(", ")} of this page, which share its namespace.`);
      }
      if (skipped.length) {
        notes.push(`Did not run block ${skipped.join(", ")}, which you stopped: its names are missing until you run it yourself.`);
      }
      show(div, result, notes.join(" "));
      if (status(div, result) === "pass") setPassed(div, true);
    } catch (error) {
      if (String(error.message) !== "stopped") {
        stopWorker("failed");
        show(div, { error: `Python could not run: ${error.message}`, output: "", match: null });
      }
    } finally {
      if (state.busy === div) setBusy(div, false);
    }
  }

  // Run every block before `target` that this Python has not run yet, in page order.
  // Returns the numbers of those it ran and of the stopped one it skipped.
  async function runEarlier(data, target, div) {
    const earlier = [];
    const skipped = [];
    for (const block of data.blocks) {
      if (block.order >= target || state.ran.has(block.order)) continue;
      const other = block.hidden ? null : divOf(block.order);
      if (block.runnable && wasStopped(block, other)) {
        skipped.push(String(block.order + 1));
        continue;
      }
      state.ran.add(block.order);
      if (!block.runnable) {
        if (block.prelude) await send({ ...block, doctest: false, expected: null }, block.prelude);
        continue;
      }
      say(div, `Running block ${block.order + 1} first…`);
      const result = await send(block, other ? blockSource(other) : block.source);
      if (other) show(other, result, "Ran before a later block.");
      earlier.push(block.hidden ? `${block.order + 1} (hidden setup)` : String(block.order + 1));
    }
    return { earlier, skipped };
  }

  // --- The editor (CodeMirror, javascripts/cb-editor.js) and what the browser keeps ------

  // What this browser keeps for the reader, in localStorage, never sent anywhere:
  //   cb-edit:<page>:<order>  {base, text}: the reader's edit of a block (base: the page's code)
  //   cb-passed               {<page>: [order, ...]}: the exercises whose checker said PASS
  // <page> is the page's path (its block list names it once per page).
  const PASSED_KEY = "cb-passed";
  const storage = (() => {
    try {
      const probe = "cb-probe";
      window.localStorage.setItem(probe, probe);
      window.localStorage.removeItem(probe);
      return window.localStorage;
    } catch (error) {
      return null; // storage refused (private mode, a policy): nothing is kept
    }
  })();
  const pageKey = () => new URL(".", location.href).pathname;
  const editKey = (div) => `cb-edit:${pageKey()}:${div.dataset.cbOrder}`;

  function readJSON(key, fallback) {
    if (!storage) return fallback;
    try {
      const text = storage.getItem(key);
      return text === null ? fallback : JSON.parse(text);
    } catch (error) {
      return fallback;
    }
  }

  // Keep `value` under `key` (null: forget it). False when the browser's storage refused it
  // (full, or the value too large for it): what the key held before is forgotten too, so
  // that a reload never brings back an older value as if it were the last.
  function writeJSON(key, value) {
    if (!storage) return true;
    try {
      if (value === null) storage.removeItem(key);
      else storage.setItem(key, JSON.stringify(value));
      return true;
    } catch (error) {
      storage.removeItem(key);
      return false;
    }
  }

  function passedPages() { return readJSON(PASSED_KEY, {}); }

  function setPassed(div, passed) {
    const pages = passedPages();
    const page = pageKey();
    const order = Number(div.dataset.cbOrder);
    const orders = new Set(pages[page] || []);
    if (passed) orders.add(order);
    else orders.delete(order);
    if (orders.size) pages[page] = [...orders].sort((a, b) => a - b);
    else delete pages[page];
    writeJSON(PASSED_KEY, Object.keys(pages).length ? pages : null);
    markPassed(div, passed);
    markNavigation();
  }

  // An exercise that passed says so above its code, with a way to forget it.
  function markPassed(div, passed) {
    div._cbPassMark?.remove();
    div._cbPassMark = null;
    div.classList.toggle("cb-passed", passed);
    if (!passed) return;
    const mark = el("p", "cb-pass-mark", "✓ You passed this exercise (kept in this browser). ");
    const clear = el("button", "cb-pass-clear", "Clear");
    clear.type = "button";
    clear.title = "Forget that this exercise passed";
    clear.addEventListener("click", () => setPassed(div, false));
    mark.append(clear);
    div.before(mark);
    div._cbPassMark = mark;
  }

  // The navigation marks each page with an exercise the reader passed.
  function markNavigation() {
    const pages = passedPages();
    for (const link of document.querySelectorAll("a.md-nav__link[href]")) {
      const url = new URL(link.getAttribute("href"), location.href);
      const passed = !url.hash && Boolean(pages[url.pathname] && pages[url.pathname].length);
      link.classList.toggle("cb-nav-passed", passed);
      if (passed) link.title = "You passed an exercise on this page (kept in this browser)";
      else if (link.title.startsWith("You passed")) link.removeAttribute("title");
    }
  }

  function blockSource(div) {
    return div._cbEditor ? div._cbEditor.text() : codeText(blockCode(div));
  }

  function showEdited(div) {
    const edited = blockSource(div) !== div._cbOriginal;
    div.classList.toggle("cb-edited", edited);
    if (div._cbReset) div._cbReset.hidden = !edited;
  }

  function remember(div, text) {
    // the copy button copies what the editor shows: it reads the hidden <code>
    blockCode(div).textContent = text.endsWith("\n") ? text : `${text}\n`;
    const kept = writeJSON(editKey(div), text === div._cbOriginal ? null : { base: div._cbOriginal, text });
    showEdited(div);
    if (kept === (div._cbUnkept === undefined)) return;
    // the browser's storage refused the edit (too large, or full): say so while it lasts
    if (kept) {
      div._cbUnkept.remove();
      div._cbUnkept = undefined;
    } else {
      div._cbUnkept = el("p", "cb-run-note cb-unkept",
        "This edit is too large for this browser's storage: it is not kept, and a reload shows the page's code.");
      div.before(div._cbUnkept);
    }
  }

  function resetButton(div, number) {
    const button = el("button", "cb-reset md-code__button", "Reset");
    button.type = "button";
    button.title = "Put back the page's code (forgets your edit)";
    button.setAttribute("aria-label", `Reset Python block ${number} to the page's code`);
    button.hidden = true;
    button.addEventListener("click", () => {
      div._cbEditor.replace(div._cbOriginal);
      remember(div, div._cbOriginal);
    });
    return button;
  }

  // Put a CodeMirror editor in place of the block's static code, with the reader's
  // saved edit if there is one.
  function attachEditor(div) {
    const code = blockCode(div);
    const number = Number(div.dataset.cbOrder) + 1;
    const original = codeText(code).replace(/\n$/, "");
    div._cbOriginal = original;
    const saved = readJSON(editKey(div), null);
    const start = saved && typeof saved.text === "string" ? saved.text : original;
    const holder = el("div", "cb-editor");
    code.after(holder);
    code.hidden = true;
    div._cbEditor = window.CBEditor.create(holder, start, {
      label: `Python block ${number}, editable (Shift+Enter runs it; Escape then Tab leaves it)`,
      onRun: () => run(div, true),
      notes: readNotes(div),
      onChange: (text) => remember(div, text),
    });
    // Tab indents here, so a reader on the keyboard is shown the way on while the editor
    // has the focus (run-blocks.css); a screen reader hears it in the label above.
    const keys = el("div", "cb-editor-keys",
      "Shift+Enter runs this block. Tab indents: to leave the code, press Escape, then Tab.");
    keys.setAttribute("aria-hidden", "true");
    holder.append(keys);
    div._cbReset = resetButton(div, number);
    div._cbRunButton.after(div._cbReset);
    if (start !== original) {
      remember(div, start);
      if (saved.base !== original) {
        const panel = resultPanel(div);
        panel.replaceChildren(el("p", "cb-run-note",
          "Your saved edit is of an earlier version of this block: Reset shows the page's code."));
        panel.dataset.status = "note";
      }
    }
    showEdited(div);
  }

  // The notes of the block's code annotations (docsite/browser_run.py puts them in
  // data-cb-notes), for the editor to show as Material shows them on static code.
  function readNotes(div) {
    try {
      return JSON.parse(div.dataset.cbNotes || "[]");
    } catch (error) {
      return [];
    }
  }

  function loadEditor() {
    return new Promise((resolve, reject) => {
      if (window.CBEditor) { resolve(); return; }
      const script = document.createElement("script");
      script.src = new URL("javascripts/cb-editor.js", ROOT).href;
      script.onload = () => resolve();
      script.onerror = () => reject(new Error("the code editor did not load"));
      document.head.append(script);
    });
  }

  function prepare(div) {
    const code = blockCode(div);
    if (!code) return false;
    if (div.dataset.cbWhy) {
      const why = el("p", "cb-run-why", `Not run in the browser: ${div.dataset.cbWhy}.`);
      // under the block's output; a notebook cell's under its input's box, in the page's
      // text (inside the box it read as the cell's code, in the code's font)
      (div.closest(".jp-Cell-inputWrapper")
        || (div.nextElementSibling && div.nextElementSibling.classList.contains("language-output")
          ? div.nextElementSibling : div)).after(why);
      return false;
    }
    const number = Number(div.dataset.cbOrder) + 1;
    const button = el("button", "cb-run md-code__button", "Run");
    button.type = "button";
    button._cbBlock = div;
    button._cbLabel = `Run Python block ${number} (Shift+Enter in the code)`;
    button.setAttribute("aria-label", button._cbLabel);
    button.title = "Run this block in your browser (Shift+Enter)";
    button.addEventListener("click", () => run(div));
    div._cbRunButton = button;
    const nav = div.querySelector("nav.md-code__nav");
    if (nav) nav.prepend(button);
    else {
      const bar = el("nav", "cb-run-bar");
      bar.append(button);
      div.querySelector("pre").prepend(bar);
    }
    if (div.dataset.cbChecker === "true") {
      const passed = passedPages()[pageKey()] || [];
      if (passed.includes(Number(div.dataset.cbOrder))) markPassed(div, true);
    }
    return true;
  }

  // Each indented line of static code carries its indentation's width (`--cb-lead`), so
  // that a continuation of it is indented past it (extra.css), as the editors do.
  function markLeads() {
    const lines = "pre > code > span[id^='__span-'], .highlight-ipynb pre > code > span.cb-line";
    for (const line of document.querySelectorAll(`article ${lines}`)) {
      const text = line.textContent;
      const spaces = /^[ \t]*/.exec(text)[0].length;
      if (spaces && spaces < text.trimEnd().length) line.style.setProperty("--cb-lead", `${spaces}ch`);
    }
  }

  async function setup() {
    markLeads();
    const runnable = [...document.querySelectorAll("div[data-cb-order]")].filter(prepare);
    markNavigation();
    if (runnable.length) {
      try {
        await loadEditor();
        for (const div of runnable) attachEditor(div);
      } catch (error) {
        // the blocks still run, as the page shows them; they cannot be edited
        console.warn(`run-blocks: ${error.message}`);
      }
    }
    document.documentElement.dataset.cbReady = "true";
  }
  // Material adds its copy buttons on load; wait for them so Run sits beside copy.
  const go = () => setTimeout(setup, 0);
  if (document.readyState === "complete") go();
  else window.addEventListener("load", go);
})();
