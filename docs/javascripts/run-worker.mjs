// The Web Worker that runs a page's Python blocks (Pyodide, served by the site itself).
// Started by run-blocks.js on the first Run, never before. Messages in:
//   {type: "init", root}                       load Pyodide, the package and the runner
//   {type: "run", id, order, source, doctest, expected, files, packages, checker}
// A block's files (repository paths) are fetched from pyodide/files/ into the same path
// under the working folder; its packages (pyodide/<name>.zip: the Qwen tokenizer, the
// speed page's benchmarks) are unpacked beside the package, each once.
// Messages out: {type: "ready", seconds} | {type: "result", id, ...run_block's dict}
//   | {type: "failed", message}
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

async function init(siteRoot) {
  const started = performance.now();
  root = siteRoot;
  const { loadPyodide } = await import(new URL("pyodide/pyodide.mjs", root).href);
  pyodide = await loadPyodide({ indexURL: new URL("pyodide/", root).href });
  const lib = LIB;
  pyodide.FS.mkdirTree(lib);
  pyodide.FS.writeFile(`${lib}/context_budget.zip`, await bytes(new URL("pyodide/context_budget.zip", root)));
  pyodide.FS.writeFile(`${lib}/cb_runner.py`, await bytes(new URL("javascripts/cb_runner.py", root)));
  pyodide.runPython(`
import os, sys, zipfile
zipfile.ZipFile("${lib}/context_budget.zip").extractall("${lib}")
sys.path.insert(0, "${lib}")
os.chdir("/home/pyodide")
import context_budget, cb_runner
`);
  runBlock = pyodide.globals.get("cb_runner").run_block;
  return (performance.now() - started) / 1000;
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
      const seconds = await init(message.root);
      self.postMessage({ type: "ready", seconds });
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
