"""What a reader meets first, as checks a test can run on a built page.

- ``OVERFLOW_JS``: run in the browser, lists the output blocks (and, with a
  selector, the code blocks) of a page that are wider than their box
  (``scrollWidth > clientWidth``): a line the reader cannot see without
  scrolling.
- ``NOTEBOOK_CODE``: the code cells of a notebook page, for ``OVERFLOW_JS``.
- ``PAINTED_PLOTS_JS``: run in the browser, lists the notebook plots that have a
  background of their own instead of the page's (nbconvert's
  ``jp-needs-dark-background`` box behind a transparent plot).
- ``BUTTONS_OVER_CODE_JS``: run in the browser, lists the code blocks (static, or
  the editor of a block the page runs) whose text runs under their Run or copy button.
- ``RUN_PANELS``: the result panels of blocks run in the page, for ``OVERFLOW_JS``.
- ``MIDWORD_JS``: run in the browser, lists the inline code in tables broken across
  lines between two letters or digits (an identifier cut mid-word).
- ``CUT_WORDS_JS``: run in the browser with a selector, lists the wrapped output
  blocks that break a line between two letters, digits or points of a word short
  enough to go whole onto the next row (a number split as ``0.`` and ``0015``).
- ``PREDICT_JS``: run in the browser, lists every "Predict" box whose answer is
  on show before it is asked for: the box must be visible itself and be followed
  by a closed ``<details>`` fold whose summary starts with "Check" (only code
  blocks, never their output, may stand between the two).
- ``api_page_problems``: on the HTML of the built API page, the traces of
  docstrings that mkdocstrings did not render: a literal double backtick, a line
  ending in ``::`` (reStructuredText's literal block), and a *Returns* table
  that splits one documented value into several rows.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

#: Output blocks: the page checker's ``output`` fences and notebook outputs.
OUTPUT_BLOCKS = ".language-output pre, .jp-OutputArea-output pre"
#: Tables: Material puts each in a box that scrolls sideways when the table is too wide.
TABLES = ".md-typeset__scrollwrap"
#: Code blocks on a Markdown page (not output, not a notebook cell, not a signature),
#: input code and pycon transcripts alike. ``OVERFLOW_JS`` prefixes ``article``, which
#: is itself the ``.md-typeset`` box: a ``.md-typeset`` here would match nothing.
CODE_BLOCKS = ".highlight:not(.language-output):not(.doc-signature) pre"
#: Code cells of a notebook page (mkdocs-jupyter): each ``pre`` scrolls in its own box.
NOTEBOOK_CODE = ".jupyter-wrapper .jp-InputArea-editor pre"
#: What a block run in the page printed, its diff and its traceback.
RUN_PANELS = ".cb-run-result pre"

MIDWORD_JS = """
() => {
  const cut = [];
  for (const code of document.querySelectorAll('article table code')) {
    const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
    let before = null;  // the last character laid out, and the top of its line
    search: for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (let i = 0; i < node.length; i++) {
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const box = range.getBoundingClientRect();
        if (box.width === 0 && box.height === 0) continue;
        const char = node.data[i];
        if (before && box.top > before.top + 1 && /[A-Za-z0-9]/.test(before.char)
            && /[A-Za-z0-9]/.test(char)) {
          cut.push(code.textContent.slice(0, 60));
          break search;
        }
        before = { char, top: box.top };
      }
    }
  }
  return cut;
}
"""

CUT_WORDS_JS = """
(selector) => {
  const cut = [];
  for (const pre of document.querySelectorAll(`article ${selector}`)) {
    const text = pre.textContent;
    const style = getComputedStyle(pre);
    const lineHeight = parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.2;
    const room = pre.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    if (!room || pre.clientHeight < lineHeight * (text.split('\\n').length + 0.5)) continue;
    const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
    const range = document.createRange();
    let at = 0;  // the character's place in the block's text
    let before = null;  // the last character laid out, and the top of its row
    search: for (let node = walker.nextNode(); node; at += node.length, node = walker.nextNode()) {
      for (let i = 0; i < node.length; i++) {
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const box = range.getBoundingClientRect();
        if (box.width === 0 && box.height === 0) continue;
        const char = node.data[i];
        // between two letters, digits or a point (a break at a space or after a hyphen is
        // where a line breaks)
        const inWord = (c) => /[\\w.]/.test(c);
        if (before && box.top > before.top + 1 && inWord(before.char) && inWord(char)) {
          const start = text.slice(0, at + i).search(/\\S+$/);
          const end = at + i + text.slice(at + i).search(/\\s|$/);
          if ((end - start) * box.width <= room) {
            cut.push(`${text.slice(start, end)} in: ${text.slice(0, 60)}`);
            break search;
          }
        }
        before = { char, top: box.top };
      }
    }
  }
  return cut;
}
"""

PAINTED_PLOTS_JS = """
() => [...document.querySelectorAll('article .jupyter-wrapper .jp-RenderedImage img')]
  .map(img => ({ img, paint: getComputedStyle(img).backgroundColor }))
  .filter(({ paint }) => paint !== 'rgba(0, 0, 0, 0)' && paint !== 'transparent')
  .map(({ img, paint }) => `${img.className || 'a plot'} on ${paint}: ${img.alt.slice(0, 40)}`)
"""

OVERFLOW_JS = """
(selector) => [...document.querySelectorAll(`article ${selector}`)]
  .map(pre => {
    // Material makes `pre > code` the scrolling box; a bare inline code has no box.
    // (A table's box is its scroll wrapper: it holds no code, and measures as itself.)
    const code = pre.querySelector(':scope > code');
    const box = code && code.clientWidth > 0 ? code : pre;
    const width = Math.max(pre.scrollWidth, box.scrollWidth);
    return { pre, width, room: box.clientWidth };
  })
  .filter(({ width, room }) => width > room + 1)
  .map(({ pre, width, room }) => {
    const longest = pre.innerText.split('\\n')
      .reduce((a, b) => (a.length >= b.length ? a : b), '');
    return `${width} px in a ${room} px box: ${longest.slice(0, 80)}`;
  })
"""

#: Run in the browser: the code blocks whose text runs under their own buttons (Run,
#: copy) at the box's top right, named by their first 60 characters. Material puts
#: the buttons over the code; a first line long enough to wrap must wrap before them.
BUTTONS_OVER_CODE_JS = """
() => [...document.querySelectorAll('article pre > code, article pre .cm-content')]
  .filter(code => {
    const buttons = [...code.closest('pre').querySelectorAll(':scope > nav button')]
      .map(button => button.getBoundingClientRect())
      .filter(box => box.width > 0 && box.height > 0);
    // the boxes of the text itself (an element's own box spans the whole line)
    const text = [];
    const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const range = document.createRange();
      range.selectNodeContents(node);
      text.push(...[...range.getClientRects()].filter(box => box.width > 0));
    }
    const meet = (t, b) => t.right > b.left + 1 && t.left < b.right - 1
      && t.bottom > b.top + 1 && t.top < b.bottom - 1;
    return buttons.some(b => text.some(t => meet(t, b)));
  })
  .map(code => code.innerText.split('\\n')[0].slice(0, 60))
"""

PREDICT_JS = """
() => {
  const problems = [];
  const title = el => (el.querySelector(':scope > .admonition-title, :scope > summary')
    ?.textContent || '').trim();
  const boxes = [...document.querySelectorAll('article .admonition, article details')]
    .filter(el => /^Predict\\b/.test(title(el)));
  for (const box of boxes) {
    const name = title(box).slice(0, 60);
    if (box.tagName === 'DETAILS') {
      problems.push(`"${name}": the question is itself a fold; keep it visible`);
      continue;
    }
    // Code the reader runs may sit between the question and its fold; its output may not.
    let fold = box.nextElementSibling;
    while (fold && fold.matches('.highlight:not(.language-output)')) {
      fold = fold.nextElementSibling;
    }
    if (!fold || fold.tagName !== 'DETAILS' || !/^Check\\b/.test(title(fold))) {
      problems.push(`"${name}": no closed "Check" fold right after it`);
    } else if (fold.open) {
      problems.push(`"${name}": its "Check" fold is open before it is asked for`);
    } else {
      const shown = [...fold.children].filter(el => el.tagName !== 'SUMMARY')
        .some(el => el.checkVisibility ? el.checkVisibility() : el.offsetParent !== null);
      if (shown) problems.push(`"${name}": the answer in its fold is visible`);
    }
  }
  return problems;
}
"""


@dataclass(frozen=True)
class ApiProblem:
    """One rendering problem on the API page, located by the module it is in."""

    module: str
    what: str

    def __str__(self) -> str:
        return f"{self.module}: {self.what}"


_MODULE_HEADING = re.compile(
    r'<h\d id="(?P<id>[\w.]+)" class="doc doc-heading">\s*'
    r'<span class="doc doc-object-name doc-module-name">'
)
_PRE = re.compile(r"<pre\b.*?</pre>", re.DOTALL)
_BLOCK_END = re.compile(r"</(?:p|li|td|th|dd|dt|h\d|div|tr)>|<br\s*/?>", re.IGNORECASE)
_TAG = re.compile(r"<[^>]+>")
_RETURNS = re.compile(
    r'doc-section-title">Returns:</span></p>\s*<table>(?P<table>.*?)</table>', re.DOTALL
)
_ROW = re.compile(r'<tr class="doc-section-item">', re.DOTALL)


def _text_lines(fragment: str) -> list[str]:
    """The visible text of an HTML fragment outside ``<pre>``, one block per line."""
    text = _TAG.sub("", _BLOCK_END.sub("\n", _PRE.sub("\n", fragment)))
    return [line.strip() for line in html.unescape(text).splitlines() if line.strip()]


def _modules(page: str) -> list[tuple[str, str]]:
    """``(module name, its HTML)`` for each module section of the API page."""
    starts = list(_MODULE_HEADING.finditer(page))
    return [
        (match.group("id"), page[match.start() : ends.start() if ends else len(page)])
        for match, ends in zip(starts, [*starts[1:], None], strict=True)
    ]


def api_page_problems(page: str) -> list[ApiProblem]:
    """Every sign of an unrendered docstring on the built API page, module by module."""
    problems: list[ApiProblem] = []
    for module, section in _modules(page):
        for line in _text_lines(section):
            if "``" in line:
                problems.append(ApiProblem(module, f"literal double backticks: {line[:70]!r}"))
            if line.endswith("::"):
                problems.append(ApiProblem(module, f"a line ending in '::': {line[-70:]!r}"))
        for match in _RETURNS.finditer(section):
            table = match.group("table")
            rows = len(_ROW.findall(table))
            named = re.search(r"<th>\s*Name\s*</th>", table) is not None
            if rows > 1 and not named:
                first = _text_lines(table.split("</thead>")[-1])[:2]
                problems.append(
                    ApiProblem(module, f"one return value split into {rows} rows: {first}")
                )
    return problems


def api_modules(page: str) -> list[str]:
    """The modules documented on the API page, in page order."""
    return [module for module, _ in _modules(page)]


#: Run in the browser with a selector: each visible element it matches, as
#: ``{text, ratio}``: the contrast ratio (WCAG 2) of its text's colour against what lies
#: under it, with the element's and its ancestors' opacity and every translucent
#: background down to the first opaque one (the page's white when there is none).
CONTRAST_JS = """
(arg) => {
  // a selector, or [selector, a colour property, whether the colour is drawn beside the
  // element (an outline) rather than on it]: the default is its text, on it
  const [selector, property, beside] = Array.isArray(arg) ? arg : [arg, 'color', false];
  const rgba = (text) => {
    const [r, g, b, a] = (text.match(/[\\d.]+/g) || ['0', '0', '0', '0']).map(Number);
    return [r, g, b, a === undefined ? 1 : a];
  };
  const over = ([r, g, b, a], [R, G, B]) => [r * a + R * (1 - a), g * a + G * (1 - a),
    b * a + B * (1 - a)];
  const luminance = (rgb) => {
    const [r, g, b] = rgb.map((v) => {
      const c = v / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const visible = (el) => el.checkVisibility ? el.checkVisibility() : el.offsetParent !== null;
  return [...document.querySelectorAll(selector)].filter(visible).map((el) => {
    const layers = [];
    let opacity = 1;
    for (let node = beside ? el.parentElement : el; node; node = node.parentElement) {
      const style = getComputedStyle(node);
      opacity *= Number(style.opacity);
      const paint = rgba(style.backgroundColor);
      if (paint[3] > 0) {
        layers.push(paint);
        if (paint[3] >= 1) break;
      }
    }
    let ground = [255, 255, 255];
    for (const layer of layers.reverse()) ground = over(layer, ground);
    const ink = rgba(getComputedStyle(el)[property]);
    const text = over([ink[0], ink[1], ink[2], ink[3] * opacity], ground);
    const [light, dark] = [luminance(text), luminance(ground)].sort((a, b) => b - a);
    const ratio = Math.round(((light + 0.05) / (dark + 0.05)) * 100) / 100;
    return { text: el.textContent.trim(), ratio };
  });
}
"""
#: The least contrast text may have against its background (WCAG 2, level AA).
MIN_CONTRAST = 4.5
#: Material's two colour schemes, as its palette toggle sets them on the body.
SCHEMES = ("default", "slate")

#: Run in the browser: what keeps a notebook's plot from reading on this screen: a
#: raster plot (its text scales with the picture, out of the page's reach) or text under
#: ``MIN_PLOT_TEXT_PX``, named by the plot's label and the text.
NOTEBOOK_PLOTS_JS = """
(least) => {
  const problems = [];
  const plots = '.jupyter-wrapper .jp-RenderedImage img, .jupyter-wrapper .jp-RenderedSVG img';
  for (const img of document.querySelectorAll(`article :is(${plots})`)) {
    problems.push(`a raster plot ${img.getBoundingClientRect().width.toFixed(0)} px wide:`
      + ` ${(img.alt || '').slice(0, 40)}`);
  }
  for (const svg of document.querySelectorAll('article .jupyter-wrapper .jp-RenderedSVG svg')) {
    const name = (svg.getAttribute('aria-label') || 'a plot').slice(0, 40);
    const small = [...svg.querySelectorAll('text')]
      .map((text) => [text.textContent.trim(), text.getBoundingClientRect().height])
      .filter(([words, height]) => words && height > 0 && height < least);
    if (small.length) {
      const [words, height] = small.sort((a, b) => a[1] - b[1])[0];
      problems.push(`${name}: text at ${height.toFixed(1)} px ("${words.slice(0, 20)}"),`
        + ` under ${least}`);
    }
  }
  return problems;
}
"""
#: The least height (px) a plot's text may have on the screen: the drawn figures' 11.
MIN_PLOT_TEXT_PX = 11
#: Run in the browser: the notebook plots whose ink stays dark on the dark scheme (the
#: site inverts them there), by label.
DARK_PLOTS_JS = """
() => [...document.querySelectorAll('article .jupyter-wrapper .jp-RenderedSVG svg')]
  .filter((svg) => !getComputedStyle(svg).filter.includes('invert'))
  .map((svg) => (svg.getAttribute('aria-label') || 'a plot').slice(0, 40))
"""
