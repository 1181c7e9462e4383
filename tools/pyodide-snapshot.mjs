// Make the memory snapshot the reader's browser starts Python from (run by
// docsite/browser_run.py at build time, with Node):
//
//   node tools/pyodide-snapshot.mjs PYODIDE_DIR PACKAGE_ZIP RUNNER OUT
//
// It starts Pyodide from PYODIDE_DIR (the core the site serves), unpacks the package zip
// and the runner as docs/javascripts/run-worker.mjs does, imports the runner and every
// module of the package, and writes Python's memory, gzipped, to OUT. A browser that
// loads it skips Python's start-up and every import of the package: the first Run on a
// page costs the download and the block, not seconds of start-up (docs/measured/speed.md
// gives the figures). Pyodide's file system is not part of the snapshot, so the worker
// still writes the package's files after loading it (tracebacks and data files read them).
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";

const [pyodideDir, packageZip, runner, out] = process.argv.slice(2);
if (!out) {
  console.error("usage: node tools/pyodide-snapshot.mjs PYODIDE_DIR PACKAGE_ZIP RUNNER OUT");
  process.exit(2);
}
const indexURL = pyodideDir.endsWith("/") ? pyodideDir : `${pyodideDir}/`;
const { loadPyodide } = await import(pathToFileURL(`${indexURL}pyodide.mjs`).href);
const pyodide = await loadPyodide({ indexURL, _makeSnapshot: true });
// The same folders as run-worker.mjs's install() (it unpacks the zip with the browser's own
// inflate); keep the two alike.
const lib = "/home/pyodide/lib";
pyodide.FS.mkdirTree(lib);
pyodide.FS.writeFile(`${lib}/context_budget.zip`, readFileSync(packageZip));
pyodide.FS.writeFile(`${lib}/cb_runner.py`, readFileSync(runner));
pyodide.runPython(`
import importlib, os, pkgutil, sys, zipfile
zipfile.ZipFile("${lib}/context_budget.zip").extractall("${lib}")
if "${lib}" not in sys.path:
    sys.path.insert(0, "${lib}")
os.chdir("/home/pyodide")
import cb_runner, context_budget
for module in pkgutil.walk_packages(context_budget.__path__, "context_budget."):
    importlib.import_module(module.name)
del importlib, os, pkgutil, sys, zipfile, module
`);
const snapshot = pyodide.makeMemorySnapshot();
// written whole or not at all: a build that stops half-way leaves no torn snapshot
writeFileSync(`${out}.tmp`, gzipSync(snapshot, { level: 6 }));
renameSync(`${out}.tmp`, out);
