// Let a table's long identifiers break only where a reader would break them: after
// `_`, `.`, `/`, `(`, `=`, `,` or the `|` between a flag's choices, never in the middle
// of a word (docs/stylesheets/extra.css stops the browser breaking them anywhere else).
// A <wbr> goes after each such character of the inline code in a table; the text itself
// is unchanged.
(() => {
  "use strict";
  const BREAK_AFTER = /[_./(=,|]/;
  function addBreaks(code) {
    const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
    const nodes = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) nodes.push(node);
    for (const node of nodes) {
      const text = node.data;
      if (!BREAK_AFTER.test(text.slice(0, -1))) continue;
      const parts = document.createDocumentFragment();
      let start = 0;
      for (let i = 0; i < text.length - 1; i++) {
        if (!BREAK_AFTER.test(text[i])) continue;
        parts.append(text.slice(start, i + 1), document.createElement("wbr"));
        start = i + 1;
      }
      parts.append(text.slice(start));
      node.replaceWith(parts);
    }
  }
  const run = () => document.querySelectorAll("article table code").forEach(addBreaks);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", run);
  else run();
})();
