// Run the page's Python blocks in the reader's browser. docsite/browser_run.py marks each
// Python block with data-cb-order (and data-cb-why when it cannot run) and points
// data-cb-data at the page's block list. Nothing loads until the first Run: then a Web
// Worker (run-worker.mjs) starts Pyodide from the site itself.
(() => {
  "use strict";
  const ROOT = new URL("../", document.currentScript.src).href;
  const state = { worker: null, ready: null, data: null, ran: new Set(), busy: null, pending: new Map(), next: 0 };

  const el = (tag, cls, text) => {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  };

  function blockCode(div) { return div.querySelector("pre > code"); }

  function resultPanel(div) {
    if (div._cbPanel) return div._cbPanel;
    let anchor = div;
    const after = div.nextElementSibling;
    if (after && after.classList.contains("language-output")) anchor = after;
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

  function show(div, result, note) {
    const checker = div.dataset.cbChecker === "true";
    const panel = resultPanel(div);
    panel.replaceChildren();
    if (note) panel.append(el("p", "cb-run-note", note));
    // An exercise's checker block is judged by the verdict it printed, not by CI's output
    // (which is the first attempt's NEEDS_WORK); every other block by CI's output.
    let status;
    if (result.error) status = "error";
    else if (checker && result.verdict === "pass") status = "pass";
    else if (checker && result.verdict === "needs_work") status = "needs_work";
    else if (checker) status = "noverdict";
    else if (result.match === true) status = "match";
    else if (result.match === false) status = "mismatch";
    else status = "ran";
    const words = {
      pass: "✓ PASS: the checker accepts this answer.",
      needs_work: "Not yet: the checker says NEEDS_WORK. What it found is below; change the code and run it again.",
      noverdict: "Ran, but printed no verdict: print what the checker returns to see PASS or NEEDS_WORK.",
      match: "✓ Matches the output CI checked.",
      mismatch: "✗ Does not match the output CI checked:",
      error: "The block raised an error:",
      ran: "Ran (CI compares no output for this block).",
    };
    if (div.classList.contains("highlight-ipynb")) {
      // a notebook cell: what it is compared with is the output the build's run shows below
      words.match = "✓ Matches the output shown below, from the build's run of the notebook.";
      words.mismatch = "✗ Does not match the output shown below, from the build's run:";
      words.ran = "Ran (the cell shows a value or a plot, which this runner does not compare).";
    }
    panel.dataset.status = status;
    if (result.match === true || result.match === false) panel.dataset.match = String(result.match);
    else delete panel.dataset.match;
    panel.append(el("p", "cb-run-verdict", words[status]));
    if (status === "mismatch" && result.diff) panel.append(el("pre", "cb-run-diff", result.diff));
    if (result.output) {
      panel.append(el("p", "cb-run-label", "Output"));
      panel.append(el("pre", "cb-run-output", result.output));
    }
    if (result.error) panel.append(el("pre", "cb-run-traceback", result.error));
    if (result.stderr) panel.append(el("pre", "cb-run-stderr", result.stderr));
  }

  function startWorker() {
    const worker = new Worker(new URL("javascripts/run-worker.mjs", ROOT), { type: "module" });
    state.worker = worker;
    state.ready = new Promise((resolve, reject) => {
      worker.onmessage = (event) => {
        const message = event.data;
        if (message.type === "ready") resolve(message.seconds);
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

  function send(block, source) {
    const id = state.next++;
    return new Promise((resolve, reject) => {
      state.pending.set(id, { resolve, reject });
      state.worker.postMessage({
        type: "run", id, order: block.order, source, doctest: block.doctest,
        expected: block.expected, files: block.files, checker: Boolean(block.checker),
      });
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
    stopWorker("stopped");
    setBusy(div, false);
    const panel = resultPanel(div);
    panel.dataset.status = "stopped";
    panel.replaceChildren(el("p", "cb-run-verdict",
      "Stopped. Python was restarted: the next Run starts it again and reruns the earlier blocks."));
  }

  async function run(div) {
    if (state.busy === div) { stop(div); return; }
    if (state.busy) return;
    setBusy(div, true);
    try {
      const data = await loadData(div);
      if (!state.worker) {
        say(div, "Starting Python in this page (the first run loads about 13 MB)…");
        startWorker();
      }
      await state.ready;
      const target = Number(div.dataset.cbOrder);
      const earlier = [];
      for (const block of data.blocks) {
        if (block.order >= target || state.ran.has(block.order)) continue;
        state.ran.add(block.order);
        const other = block.hidden ? null : divOf(block.order);
        if (!block.runnable) {
          if (block.prelude) await send({ ...block, doctest: false, expected: null }, block.prelude);
          continue;
        }
        say(div, `Running block ${block.order + 1} first…`);
        const result = await send(block, other ? blockCode(other).textContent : block.source);
        if (other) show(other, result, "Ran before a later block.");
        earlier.push(block.hidden ? `${block.order + 1} (hidden setup)` : String(block.order + 1));
      }
      const block = data.blocks[target];
      const result = await send(block, blockCode(div).textContent);
      state.ran.add(target);
      const note = earlier.length
        ? `First ran the earlier block${earlier.length > 1 ? "s" : ""} ${earlier.join(", ")} of this page, which share its namespace.`
        : "";
      show(div, result, note);
    } catch (error) {
      if (String(error.message) !== "stopped") {
        stopWorker("failed");
        show(div, { error: `Python could not run: ${error.message}`, output: "", match: null });
      }
    } finally {
      if (state.busy === div) setBusy(div, false);
    }
  }

  function prepare(div) {
    const code = blockCode(div);
    if (!code) return;
    if (div.dataset.cbWhy) {
      const why = el("p", "cb-run-why", `Not run in the browser: ${div.dataset.cbWhy}.`);
      (div.nextElementSibling && div.nextElementSibling.classList.contains("language-output")
        ? div.nextElementSibling : div).after(why);
      return;
    }
    const number = Number(div.dataset.cbOrder) + 1;
    const button = el("button", "cb-run md-code__button", "Run");
    button.type = "button";
    button._cbBlock = div;
    button._cbLabel = `Run Python block ${number} (Shift+Enter in the code)`;
    button.setAttribute("aria-label", button._cbLabel);
    button.title = "Run this block in your browser (Shift+Enter)";
    button.addEventListener("click", () => run(div));
    const nav = div.querySelector("nav.md-code__nav");
    if (nav) nav.prepend(button);
    else {
      const bar = el("nav", "cb-run-bar");
      bar.append(button);
      div.querySelector("pre").prepend(bar);
    }
    code.setAttribute("contenteditable", "plaintext-only");
    code.setAttribute("spellcheck", "false");
    code.setAttribute("role", "textbox");
    code.setAttribute("aria-multiline", "true");
    code.setAttribute("aria-label", `Python block ${number}, editable`);
    code.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && event.shiftKey) {
        event.preventDefault();
        run(div);
      }
    });
  }

  function setup() {
    for (const div of document.querySelectorAll("div[data-cb-order]")) prepare(div);
  }
  // Material adds its copy buttons on load; wait for them so Run sits beside copy.
  const go = () => setTimeout(setup, 0);
  if (document.readyState === "complete") go();
  else window.addEventListener("load", go);
})();
