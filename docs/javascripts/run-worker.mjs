// The Web Worker that runs a page's Python blocks (Pyodide, served by the site itself).
// Started by run-blocks.js on the first Run, never before. Messages in:
//   {type: "init", root}                       load Pyodide, the package and the runner
//   {type: "run", id, order, source, doctest, expected, files, packages, checker, shipped}
//   {type: "put", id, folder, files: [{name, bytes}]}  a reader's own files (Bill your own
//       session): written under /home/pyodide/<folder>/, emptied first, each at its name, a
//       path under it where the reader chose a folder ("project/<session>/subagents/a.jsonl");
//       nothing is sent anywhere. Answered with {type: "put", id}.
// A block's files (repository paths) are fetched from pyodide/files/ into the same path
// under the working folder; its packages (pyodide/<name>.zip: the Qwen tokenizer, the
// speed page's benchmarks) are unpacked beside the package, each once.
// Messages out: {type: "ready", seconds, python} | {type: "result", id, ...run_block's dict}
//   | {type: "put", id} | {type: "failed", message}; a block may post its own
//   {type: "progress", text} (Bill your own session does, between its steps).
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

// The files of a zip archive (stored or deflated, as Python's zipfile writes them), each
// as [name, bytes], unpacked by the browser's own inflate: far quicker than Python's
// zipfile in WebAssembly, which took a fifth of a second of the first Run for the package.
// One file after another: all at once took more CPU time, not less.
async function zipEntries(zip) {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  let end = zip.length - 22;
  while (end >= 0 && view.getUint32(end, true) !== 0x06054b50) end -= 1;
  if (end < 0) throw new Error("not a zip archive: no end of central directory");
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  const entries = [];
  for (let index = 0; index < count; index += 1) {
    if (view.getUint32(at, true) !== 0x02014b50) throw new Error("a zip entry is damaged");
    const method = view.getUint16(at + 10, true);
    const packed = view.getUint32(at + 20, true);
    const nameLength = view.getUint16(at + 28, true);
    const skip = nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
    const local = view.getUint32(at + 42, true);
    const name = new TextDecoder().decode(zip.subarray(at + 46, at + 46 + nameLength));
    at += 46 + skip;
    if (name.endsWith("/")) continue;
    const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    const data = zip.subarray(start, start + packed);
    if (method === 0) entries.push([name, data]);
    else if (method === 8) entries.push([name, await inflated(data)]);
    else throw new Error(`${name}: zip method ${method} is not stored or deflated`);
  }
  return entries;
}

// Raw deflate `data` inflated, written straight into a DecompressionStream and read
// straight out of it: piped there from a Blob into a Response, each file cost about ten
// times the CPU time (a quarter of a second for the package's 200 files, on every page).
async function inflated(data) {
  const stream = new DecompressionStream("deflate-raw");
  const writer = stream.writable.getWriter();
  const written = writer.write(data).then(() => writer.close());
  const reader = stream.readable.getReader();
  const chunks = [];
  const read = (async () => {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      chunks.push(chunk.value);
    }
  })();
  await Promise.all([written, read]);
  if (chunks.length === 1) return chunks[0];
  const whole = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  let at = 0;
  for (const chunk of chunks) { whole.set(chunk, at); at += chunk.length; }
  return whole;
}

// Write every file of `zip` under the folder `into` of Pyodide's file system.
async function unpack(zip, into) {
  for (const [name, data] of await zipEntries(zip)) {
    const target = `${into}/${name}`;
    pyodide.FS.mkdirTree(target.slice(0, target.lastIndexOf("/")));
    pyodide.FS.writeFile(target, data);
  }
}

// Write the package and the runner into Pyodide's file system, put them on sys.path and
// work in /home/pyodide; with `load`, import them too (a snapshot holds them imported).
// tools/pyodide-snapshot.mjs takes the same steps before it takes the snapshot.
async function install(packageZip, runner, load) {
  const lib = LIB;
  pyodide.FS.mkdirTree(lib);
  await unpack(packageZip, lib);
  pyodide.FS.writeFile(`${lib}/cb_runner.py`, runner);
  pyodide.runPython(`
import os, sys
if "${lib}" not in sys.path:
    sys.path.insert(0, "${lib}")
os.chdir("/home/pyodide")
${load ? "import context_budget, cb_runner" : ""}
`);
}

// Pyodide, from `snapshot` (its bytes, or a promise of them) or, given null, cold.
async function start(indexURL, snapshot) {
  const { loadPyodide } = await import(new URL("pyodide/pyodide.mjs", root).href);
  if (!snapshot) return loadPyodide({ indexURL });
  const restore = growMemoryFor(snapshot);
  try {
    return await loadPyodide({ indexURL, _loadSnapshot: snapshot });
  } finally {
    restore();
  }
}

// Pyodide's WebAssembly memory starts at 30 MiB, and loading a snapshot copies it into
// that memory as it is: the snapshot of a Python that has imported the whole package is
// larger, and does not fit. Until `restore()` is called, every WebAssembly instance this
// worker makes has its memory grown, as soon as it exists, to the snapshot's size.
function growMemoryFor(snapshot) {
  const PAGE = 65536;
  const originals = {};
  for (const name of ["instantiate", "instantiateStreaming"]) {
    const original = WebAssembly[name];
    originals[name] = original;
    WebAssembly[name] = async function (...args) {
      const made = await original.apply(this, args);
      const memory = (made.instance ?? made).exports?.memory;
      const bytes = (await snapshot).length;
      if (memory instanceof WebAssembly.Memory && memory.buffer.byteLength < bytes) {
        memory.grow(Math.ceil((bytes - memory.buffer.byteLength) / PAGE));
      }
      return made;
    };
  }
  return () => Object.assign(WebAssembly, originals);
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
      await install(packageZip, runner, false);
    } catch {
      snapshot = null; // a snapshot this browser cannot load: start cold
    }
  }
  if (!snapshot) {
    pyodide = await start(indexURL, null);
    await install(packageZip, runner, true);
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
    await unpack(await bytes(new URL(`pyodide/${name}.zip`, root)), LIB);
    pyodide.runPython("import importlib; importlib.invalidate_caches()");
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
    const parts = String(file.name || "").split("/");
    if (parts.some((part) => !part || part === "." || part === "..")) {
      throw new Error(`not a file's path: ${file.name}`);
    }
    if (parts.length > 1) pyodide.FS.mkdirTree(`${target}/${parts.slice(0, -1).join("/")}`);
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
