// The Web Worker that runs a page's Python blocks (Pyodide, served by the site itself).
// Started by run-blocks.js on the first Run, never before. Messages in:
//   {type: "init", root}                       load Pyodide, the package and the runner
//   {type: "run", id, order, source, doctest, expected, files, packages, checker, shipped}
// A block's files (repository paths) are fetched from pyodide/files/ into the same path
// under the working folder; its packages (pyodide/<name>.zip: the Qwen tokenizer, the
// speed page's benchmarks) are unpacked beside the package, each once.
// Messages out: {type: "ready", seconds, python} | {type: "result", id, ...run_block's dict}
//   | {type: "failed", message}
// python says how Python started: "snapshot" (from the memory snapshot the site serves
// beside the package, pyodide/snapshot-<key>.gz, made at build time by
// tools/pyodide-snapshot.mjs with the runner and every module of the package imported)
// or "cold" (the snapshot could not be had or loaded: Python starts and imports them
// here, seconds more). The key is the SHA-256 of the package zip, the runner and
// Pyodide's lock file, so a page never starts from the snapshot of another build; the
// browser's HTTP cache keeps the snapshot for the next page.
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

async function sha256(parts) {
  const whole = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) { whole.set(part, at); at += part.length; }
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", whole));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

// The site's snapshot for `key`: null when the site has none, else a promise of its
// bytes, unpacked as they arrive (Pyodide fetches and compiles its WebAssembly meanwhile).
async function siteSnapshot(key) {
  try {
    const response = await fetch(new URL(`pyodide/snapshot-${key}.gz`, root));
    if (!response.ok) return null;
    const unpacked = response.body.pipeThrough(new DecompressionStream("gzip"));
    return new Response(unpacked).arrayBuffer().then((buffer) => new Uint8Array(buffer));
  } catch {
    return null;
  }
}

// Write the package and the runner into Pyodide's file system, put them on sys.path and
// work in /home/pyodide; with `load`, import them too (a snapshot holds them imported).
// tools/pyodide-snapshot.mjs takes the same steps before it takes the snapshot.
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

// Pyodide, from `snapshot` (its bytes, or a promise of them) or, given null, cold.
async function start(indexURL, snapshot) {
  const { loadPyodide } = await import(new URL("pyodide/pyodide.mjs", root).href);
  return loadPyodide(snapshot ? { indexURL, _loadSnapshot: snapshot } : { indexURL });
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
  let snapshot = await siteSnapshot(await sha256([packageZip, runner, lock]));
  if (snapshot) {
    try {
      pyodide = await start(indexURL, snapshot);
      install(packageZip, runner, false);
    } catch {
      snapshot = null; // a snapshot this browser cannot load: start cold
    }
  }
  if (!snapshot) {
    pyodide = await start(indexURL, null);
    install(packageZip, runner, true);
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

self.onmessage = async (event) => {
  const message = event.data;
  try {
    if (message.type === "init") {
      const { seconds, python } = await init(message.root);
      self.postMessage({ type: "ready", seconds, python });
    } else if (message.type === "run") {
      await ensureFiles(message.files || []);
      await ensurePackages(message.packages || []);
      const result = runBlock(
        message.order, message.source, message.doctest, message.expected ?? undefined,
        Boolean(message.checker), message.shipped || []);
      const plain = result.toJs({ dict_converter: Object.fromEntries });
      result.destroy();
      self.postMessage({ type: "result", id: message.id, ...plain });
    }
  } catch (error) {
    self.postMessage({ type: "failed", id: message.id, message: String(error && error.message || error) });
  }
};
