// The Web Worker that runs a page's Python blocks (Pyodide, served by the site itself).
// Started by run-blocks.js on the first Run, never before. Messages in:
//   {type: "init", root}                       load Pyodide, the package and the runner
//   {type: "run", id, order, source, doctest, expected, files, packages, checker}
//   {type: "put", id, folder, files: [{name, bytes}]}  a reader's own files (Bill your own
//       session): written under /home/pyodide/<folder>/, emptied first; nothing is sent
//       anywhere. Answered with {type: "put", id}.
// A block's files (repository paths) are fetched from pyodide/files/ into the same path
// under the working folder; its packages (pyodide/<name>.zip: the Qwen tokenizer, the
// speed page's benchmarks) are unpacked beside the package, each once.
// Messages out: {type: "ready", seconds, python} | {type: "result", id, ...run_block's dict}
//   | {type: "put", id} | {type: "failed", message}; a block may post its own
//   {type: "progress", text} (Bill your own session does, between its steps).
// python says how Python started: "snapshot" (from the memory snapshot an earlier page of
// this site left in the browser's Cache Storage) or "cold" (and a snapshot was stored).
// The snapshot is taken once Pyodide has imported the package and the runner, before any
// block runs; it is kept gzipped (about 8 MB for 31 MB of memory) under a key made of the
// SHA-256 of the package, the runner and Pyodide's lock file, so a new site or Pyodide
// never starts from an old one. Starting from it takes a fraction of a second where a cold
// start takes seconds. Where Cache Storage or the snapshot fails, Python starts cold.
let pyodide = null;
let runBlock = null;
let root = "";
const fetched = new Set();
const unpacked = new Set();
const LIB = "/home/pyodide/lib";

async function bytes(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

const SNAPSHOTS = "context-budget-python";

async function sha256(parts) {
  const whole = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) { whole.set(part, at); at += part.length; }
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", whole));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

async function piped(data, transform) {
  return new Uint8Array(await new Response(new Blob([data]).stream().pipeThrough(transform)).arrayBuffer());
}

// The stored snapshot for `key` (a URL under the site), or null when there is none.
async function storedSnapshot(key) {
  try {
    const store = await caches.open(SNAPSHOTS);
    const found = await store.match(key);
    return found ? await piped(await found.arrayBuffer(), new DecompressionStream("gzip")) : null;
  } catch {
    return null;
  }
}

// Keep `snapshot` under `key` and drop every other one: one site, one snapshot.
async function storeSnapshot(key, snapshot) {
  try {
    const store = await caches.open(SNAPSHOTS);
    for (const old of await store.keys()) await store.delete(old);
    await store.put(key, new Response(await piped(snapshot, new CompressionStream("gzip"))));
  } catch {
    // no Cache Storage here (a page served over plain http off this machine): start cold each time
  }
}

async function forgetSnapshots() {
  try { await caches.delete(SNAPSHOTS); } catch { /* nothing stored */ }
}

// Write the package and the runner into Pyodide's file system, put them on sys.path and
// work in /home/pyodide; with `load`, import them too (a snapshot holds them imported).
function install(packageZip, runner, load) {
  const lib = LIB;
  pyodide.FS.mkdirTree(lib);
  pyodide.FS.writeFile(`${lib}/context_budget.zip`, packageZip);
  pyodide.FS.writeFile(`${lib}/cb_runner.py`, runner);
  pyodide.runPython(`
import os, sys, zipfile
zipfile.ZipFile("${lib}/context_budget.zip").extractall("${lib}")
if "${lib}" not in sys.path:
    sys.path.insert(0, "${lib}")
os.chdir("/home/pyodide")
${load ? "import context_budget, cb_runner" : ""}
`);
}

async function start(indexURL, snapshot) {
  const { loadPyodide } = await import(new URL("pyodide/pyodide.mjs", root).href);
  return loadPyodide(snapshot ? { indexURL, _loadSnapshot: snapshot } : { indexURL, _makeSnapshot: true });
}

async function init(siteRoot) {
  const started = performance.now();
  root = siteRoot;
  const indexURL = new URL("pyodide/", root).href;
  const [packageZip, runner, lock] = await Promise.all([
    bytes(new URL("pyodide/context_budget.zip", root)),
    bytes(new URL("javascripts/cb_runner.py", root)),
    bytes(new URL("pyodide/pyodide-lock.json", root)),
  ]);
  const key = new URL(`pyodide/snapshot-${await sha256([packageZip, runner, lock])}`, root).href;
  let snapshot = await storedSnapshot(key);
  if (snapshot) {
    try {
      pyodide = await start(indexURL, snapshot);
      install(packageZip, runner, false);
    } catch {
      await forgetSnapshots();
      snapshot = null;
    }
  }
  if (!snapshot) {
    pyodide = await start(indexURL, null);
    install(packageZip, runner, true);
    let made = null;
    try {
      made = pyodide.makeMemorySnapshot();
    } catch {
      // a Pyodide that cannot take one: every page starts cold, as before snapshots
    }
    if (made) await storeSnapshot(key, made);
  }
  runBlock = pyodide.globals.get("cb_runner").run_block;
  return { seconds: (performance.now() - started) / 1000, python: snapshot ? "snapshot" : "cold" };
}

async function ensureFiles(files) {
  for (const name of files) {
    if (fetched.has(name)) continue;
    const target = `/home/pyodide/${name}`;
    pyodide.FS.mkdirTree(target.slice(0, target.lastIndexOf("/")));
    pyodide.FS.writeFile(target, await bytes(new URL(`pyodide/files/${name}`, root)));
    fetched.add(name);
  }
}

async function ensurePackages(names) {
  for (const name of names) {
    if (unpacked.has(name)) continue;
    const zip = `${LIB}/${name}.zip`;
    pyodide.FS.writeFile(zip, await bytes(new URL(`pyodide/${name}.zip`, root)));
    pyodide.runPython(`
import importlib, zipfile
zipfile.ZipFile("${zip}").extractall("${LIB}")
importlib.invalidate_caches()
`);
    unpacked.add(name);
  }
}

// The reader's files, kept in Pyodide's memory only, under /home/pyodide/<folder>/.
function putFiles(folder, files) {
  if (!/^[a-z][a-z0-9-]*$/.test(folder)) throw new Error(`not a folder name: ${folder}`);
  const target = `/home/pyodide/${folder}`;
  pyodide.runPython(`import shutil; shutil.rmtree("${target}", ignore_errors=True)`);
  pyodide.FS.mkdirTree(target);
  for (const file of files) {
    if (!file.name || file.name.includes("/") || file.name === "." || file.name === "..") {
      throw new Error(`not a file name: ${file.name}`);
    }
    pyodide.FS.writeFile(`${target}/${file.name}`, new Uint8Array(file.bytes));
  }
}

self.onmessage = async (event) => {
  const message = event.data;
  try {
    if (message.type === "init") {
      const { seconds, python } = await init(message.root);
      self.postMessage({ type: "ready", seconds, python });
    } else if (message.type === "put") {
      putFiles(message.folder, message.files);
      self.postMessage({ type: "put", id: message.id });
    } else if (message.type === "run") {
      await ensureFiles(message.files || []);
      await ensurePackages(message.packages || []);
      const result = runBlock(
        message.order, message.source, message.doctest, message.expected ?? undefined, Boolean(message.checker));
      const plain = result.toJs({ dict_converter: Object.fromEntries });
      result.destroy();
      self.postMessage({ type: "result", id: message.id, ...plain });
    }
  } catch (error) {
    self.postMessage({ type: "failed", id: message.id, message: String(error && error.message || error) });
  }
};
