// Bill your own session: the page's file input hands the chosen files to Python in this
// page (the same Web Worker and Pyodide that run the course's blocks, run-worker.mjs),
// which bills and replays them with the package (context_budget.cli._whatif.page) and
// returns the page `context-budget whatif --html` writes; it is shown in a sandboxed frame
// that runs no script. The files are read here and kept in the worker's memory: nothing is
// sent anywhere, and the only requests are for the site's own files (Pyodide, the package).
// Loaded on every page; it does nothing where there is no #cb-own-session.
(() => {
  "use strict";
  const box = document.getElementById("cb-own-session");
  if (!box) return;
  const ROOT = new URL("../", document.currentScript.src).href;
  // the files chosen (#cb-own-files), or a folder chosen (#cb-own-folder): its files keep
  // their paths under it, so the folder is read as `bill` reads one (a session's sub-agents
  // under <session>/subagents/, an OpenHands conversation's events/)
  const inputs = [...box.querySelectorAll("input[type=file]")];
  const status = box.querySelector(".cb-own-status");
  const bar = box.querySelector("progress");
  const frame = box.querySelector("iframe");
  let worker = null;
  let ready = null;
  let next = 0;
  const waiting = new Map();

  // The status line is a live region: a screen reader reads out each new step. A count
  // that follows a step (a file read chunk by chunk, a replay call by call) changes the
  // text `quiet`ly, marked busy, so that it is not read out each time.
  function say(text, kind, quiet) {
    status.setAttribute("aria-busy", quiet ? "true" : "false");
    status.textContent = text;
    status.dataset.kind = kind || "busy";
  }

  // The words of a progress text before its first count: "replaying " of "replaying 3 of 9".
  const step = (text) => text.split(/\d/)[0];
  let lastStep = null;

  function showProgress(done, total) {
    bar.hidden = false;
    bar.max = total || 1;
    bar.value = done;
  }

  function start() {
    worker = new Worker(new URL("javascripts/run-worker.mjs", ROOT), { type: "module" });
    ready = new Promise((resolve, reject) => {
      worker.onmessage = (event) => {
        const message = event.data;
        if (message.type === "ready") resolve();
        else if (message.type === "progress") {
          const quiet = step(message.text) === lastStep;
          lastStep = step(message.text);
          say(`Python: ${message.text}…`, undefined, quiet);
        }
        else if (message.type === "failed" && message.id === undefined) reject(new Error(message.message));
        else {
          const answer = waiting.get(message.id);
          waiting.delete(message.id);
          if (!answer) return;
          if (message.type === "failed") answer.reject(new Error(message.message));
          else answer.resolve(message);
        }
      };
      worker.onerror = (event) => reject(new Error(event.message || "Python did not start"));
    });
    worker.postMessage({ type: "init", root: ROOT });
  }

  function ask(message, transfer) {
    const id = next++;
    return new Promise((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      worker.postMessage({ ...message, id }, transfer || []);
    });
  }

  // "<done> of <total> <unit>", in the unit that suits the total (bytes, kB or MB, to a
  // tenth), so that a small file is never read as "0 of 0 MB".
  function amount(done, total) {
    const [unit, size] = total < 1e3 ? ["bytes", 1] : total < 1e6 ? ["kB", 1e3] : ["MB", 1e6];
    const shown = (bytes) => (Math.round((bytes / size) * 10) / 10).toLocaleString("en");
    return `${shown(done)} of ${shown(total)} ${unit}`;
  }

  // The file's bytes, read in chunks so that a large file shows how far the reading is.
  async function read(file, before, total) {
    const chunks = [];
    let done = 0;
    const reader = file.stream().getReader();
    for (;;) {
      const { value, done: finished } = await reader.read();
      if (finished) break;
      chunks.push(value);
      done += value.length;
      showProgress(before + done, total);
      say(`Reading ${file.name}: ${amount(before + done, total)}…`, undefined, chunks.length > 1);
    }
    const bytes = new Uint8Array(done);
    let at = 0;
    for (const chunk of chunks) { bytes.set(chunk, at); at += chunk.length; }
    return bytes.buffer;
  }

  // Python's part: bill and replay the files or the folder written under /home/pyodide/own/
  // (`names`: their paths there), print the page.
  function source(names) {
    return [
      "import json, os",
      "import js",
      "from pyodide.ffi import to_js",
      "from context_budget.cli._bill import BillError",
      "from context_budget.cli._whatif import page",
      "def _progress(text):",
      "    message = {'type': 'progress', 'text': text}",
      "    js.postMessage(to_js(message, dict_converter=js.Object.fromEntries))",
      "os.chdir('/home/pyodide/own')",
      "try:",
      `    print(page(json.loads(${JSON.stringify(JSON.stringify(names))}), _progress))`,
      "except BillError as error:",
      "    print('context-budget: error: ' + str(error))",
      "finally:",
      "    os.chdir('/home/pyodide')",
    ].join("\n");
  }

  // The bill's page in the frame, or null before there is one.
  function billRoot() {
    return (!frame.hidden && frame.contentDocument && frame.contentDocument.documentElement) || null;
  }

  // The frame as tall as the bill's page at the frame's width (its root's box, body margins
  // included; not scrollHeight, which never falls below the frame's own height): drawn
  // again whenever the frame's width changes, so no bill ends behind a scroll of its own.
  function fit() {
    const inner = billRoot();
    if (inner) frame.style.height = `${Math.ceil(inner.getBoundingClientRect().height) + 24}px`;
  }

  // The bill in the site's scheme: the site's palette switch (Material marks the body
  // `data-md-color-scheme`, "slate" for dark) can choose another than the system's, which
  // is all the frame's page would follow on its own (context_budget.bill_page).
  function matchScheme() {
    const inner = billRoot();
    if (inner) inner.dataset.scheme = document.body.dataset.mdColorScheme === "slate" ? "dark" : "light";
  }

  function show(html) {
    frame.hidden = false;
    frame.onload = () => { matchScheme(); fit(); };
    frame.srcdoc = html;
  }

  new MutationObserver(matchScheme)
    .observe(document.body, { attributes: true, attributeFilter: ["data-md-color-scheme"] });
  let fittedWidth = 0;
  new ResizeObserver(() => {
    if (frame.clientWidth === fittedWidth) return; // its own height changed: nothing to do
    fittedWidth = frame.clientWidth;
    fit();
  }).observe(frame);

  // What a folder holds that a bill may read, each with its path under the folder's parent
  // ("project/<session>/subagents/agent-1.jsonl"): its .jsonl and .json files, as the
  // file chooser offers (a note or a picture beside them is not read at all).
  const SESSION_FILE = /\.jsonl?$/i;
  const inFolder = (files) => files.filter((file) => SESSION_FILE.test(file.name));

  async function bill(files, folder) {
    lastStep = null;
    for (const input of inputs) input.disabled = true;
    frame.hidden = true;
    const total = files.reduce((sum, file) => sum + file.size, 0);
    try {
      const read_ = [];
      let before = 0;
      for (const file of files) {
        read_.push({ name: file.webkitRelativePath || file.name, bytes: await read(file, before, total) });
        before += file.size;
      }
      bar.hidden = true;
      if (!worker) {
        say("Starting Python in this page (the first time loads about 20 MB from this site)…");
        start();
      }
      await ready;
      say("Handing the files to Python…");
      await ask({ type: "put", folder: "own", files: read_ }, read_.map((file) => file.bytes));
      const result = await ask({
        type: "run", order: 0, doctest: false,
        source: source(folder ? [folder] : files.map((file) => file.name)),
        expected: null, files: [], packages: [], checker: false,
      });
      if (result.error) throw new Error(result.error);
      const output = result.output;
      if (output.startsWith("context-budget: error: ")) {
        say(`Not billed: ${output.slice("context-budget: error: ".length).trim()}`, "error");
        return;
      }
      // the warnings the command prints on stderr (a skipped line, the days' zone), as notes
      const notes = (result.stderr || "").trim().split("\n").filter(Boolean)
        .map((line) => line.replace(/^context-budget: warning: /, ""));
      const what = folder ? `the folder ${folder}`
        : files.length === 1 ? files[0].name : `${files.length} files`;
      say(`Billed ${what}.${notes.length ? ` (${notes.join("; ")})` : ""}`, "done");
      show(output);
    } catch (error) {
      if (worker) worker.terminate();
      worker = null;
      say(`Python could not bill the files: ${error.message}`, "error");
    } finally {
      bar.hidden = true;
      for (const input of inputs) input.disabled = false;
    }
  }

  // The browser sends no change when the file chosen is the one already chosen, and a
  // reader chooses a live session again to bill what its agent wrote since: the choice
  // is forgotten as the picker opens (a click, or Enter or Space on the input).
  for (const input of inputs) {
    input.addEventListener("click", () => { input.value = ""; });
    input.addEventListener("change", () => {
      const chosen = Array.from(input.files || []);
      if (!input.webkitdirectory) {
        if (chosen.length) bill(chosen);
        return;
      }
      // (a picker closed sends no change: the choice was forgotten as it opened)
      if (!chosen.length) {
        say("Not billed: the folder chosen holds no file.", "error");
        return;
      }
      const folder = chosen[0].webkitRelativePath.split("/")[0];
      const files = inFolder(chosen);
      if (files.length) bill(files, folder);
      else say(`Not billed: the folder ${folder} holds no .jsonl or .json file.`, "error");
    });
  }
  box.dataset.cbOwnReady = "true";
})();
