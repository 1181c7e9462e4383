"""What a reader sees of a page's figures and exercises, as checks on a loaded page.

Each check is a JavaScript function run in the page and a Python function
``check(page) -> list[str]`` that returns the problems it found (empty when there
are none), so one page load can serve every check.

- ``figure_fit_problems``: every shown figure (``.cb-figure svg``) spans its column,
  shows its text at ``min_px`` or more, and draws no text outside its picture.
- ``series_problems``: no series of a line chart runs entirely along other series
  (every point of it within a CSS pixel of them) unless the figure says so
  (``data-overlaps`` on the path, and the label names the series it runs along);
  two series with the same path are the extreme case.
- ``label_problems``: no two labels of a figure overlap, and no series line,
  dashed reference line or bar runs through a label.
- ``id_problems``: no id a picture uses or is named by appears twice on a page
  (Material's own code-line anchors are not this check's), and every picture's
  ``aria-labelledby`` names its own ``<title>`` and ``<desc>``, so each figure
  keeps its own accessible name.
- ``alt_problems``: every image of the page has alt text of its own, not
  nbconvert's "No description has been provided for this image".
- ``runner_problems``: every code cell of a notebook page has a Run button or a
  note saying why the browser cannot run it.
- ``verdict_problems``: every exercise checker block that has been run shows the
  checker's verdict: ``PASS`` as the green passed state, ``NEEDS_WORK`` as what is
  wrong, never "does not match the output CI checked".

Each check fails on ``tests/fixtures/browser/figure_defects.html`` (or, for the
verdict, ``checker_defects.html``); ``tests/browser/test_figures_and_exercises.py``
shows it and runs the checks on every page.
"""

from __future__ import annotations

from playwright.sync_api import Page

#: The smallest text a figure may show, in CSS pixels.
MIN_TEXT_PX = 11.0
#: Lines closer than this, in CSS pixels, cannot be told apart.
ONE_PIXEL = 1.0
#: How much of its column a figure must span.
MIN_SPAN = 0.95
#: nbconvert's alt text for an image the notebook did not describe.
NO_DESCRIPTION = "No description has been provided for this image"

FIGURE_FIT_JS = """
([minPx, minSpan]) => {
  const problems = [];
  const shown = el => el.getClientRects().length > 0 && getComputedStyle(el).display !== 'none';
  const figures = [...document.querySelectorAll('article .cb-figure')];
  for (const [index, figure] of figures.entries()) {
    const name = `figure ${index + 1} (${figure.id || 'no id'})`;
    const svgs = [...figure.querySelectorAll(':scope > svg')].filter(shown);
    if (svgs.length !== 1) {
      problems.push(`${name}: ${svgs.length} pictures shown, not 1`);
      continue;
    }
    const svg = svgs[0];
    // The column: the figure's parent's content box.
    const parent = figure.parentElement;
    const style = getComputedStyle(parent);
    const column = parent.clientWidth - parseFloat(style.paddingLeft)
      - parseFloat(style.paddingRight);
    const box = svg.getBoundingClientRect();
    const limit = parseFloat(getComputedStyle(svg).maxWidth) || Infinity;
    if (box.width < minSpan * Math.min(column, limit)) {
      problems.push(
        `${name}: ${Math.round(box.width)} px wide in a ${Math.round(column)} px column`);
    }
    const scale = svg.getScreenCTM() ? svg.getScreenCTM().a : 1;
    let smallest = Infinity;
    for (const text of svg.querySelectorAll('text')) {
      if (!text.textContent.trim()) continue;
      smallest = Math.min(smallest, parseFloat(getComputedStyle(text).fontSize) * scale);
      const r = text.getBoundingClientRect();
      const outside = r.left < box.left - 1 || r.right > box.right + 1
        || r.top < box.top - 1 || r.bottom > box.bottom + 1;
      if (outside) {
        const words = text.textContent.trim().slice(0, 40);
        problems.push(`${name}: text cut off at the picture's edge: "${words}"`);
      }
    }
    if (smallest < minPx) {
      problems.push(`${name}: text at ${smallest.toFixed(1)} px, under ${minPx} px`);
    }
  }
  return problems;
}
"""

SERIES_JS = """
(pixels) => {
  const problems = [];
  const shown = el => el.getClientRects().length > 0;
  // A path's points in picture units (M/L/H/V commands).
  const points = d => {
    const out = [];
    const tokens = d.match(/[MLHV]|-?[0-9.]+/g) || [];
    let x = 0, y = 0, command = 'M';
    for (let i = 0; i < tokens.length;) {
      if (/[MLHV]/.test(tokens[i])) command = tokens[i++];
      if (command === 'H') x = +tokens[i++];
      else if (command === 'V') y = +tokens[i++];
      else { x = +tokens[i++]; y = +tokens[i++]; }
      out.push([x, y]);
    }
    return out;
  };
  // Points along a line, at most one unit apart, its vertices included.
  const samples = line => {
    const out = line.slice(0, 1);
    for (let k = 1; k < line.length; k++) {
      const [[x0, y0], [x1, y1]] = [line[k - 1], line[k]];
      const count = Math.max(1, Math.ceil(Math.hypot(x1 - x0, y1 - y0)));
      for (let j = 1; j <= count; j++) {
        out.push([x0 + (x1 - x0) * j / count, y0 + (y1 - y0) * j / count]);
      }
    }
    return out;
  };
  const toSegment = ([px, py], [ax, ay], [bx, by]) => {
    const dx = bx - ax, dy = by - ay, length = dx * dx + dy * dy;
    const share = length ? Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / length)) : 0;
    return Math.hypot(px - ax - share * dx, py - ay - share * dy);
  };
  const near = (point, line, tolerance) => line.length === 1
    ? toSegment(point, line[0], line[0]) <= tolerance
    : line.slice(1).some((b, k) => toSegment(point, line[k], b) <= tolerance);
  for (const [index, svg] of [...document.querySelectorAll('article .cb-figure svg')].entries()) {
    if (!shown(svg)) continue;
    // One CSS pixel in picture units: lines closer than that cannot be told apart.
    const tolerance = pixels / (svg.getScreenCTM() ? svg.getScreenCTM().a : 1);
    const series = [...svg.querySelectorAll('path')].filter(path => {
      const stroke = path.getAttribute('stroke') || '';
      return path.getAttribute('fill') === 'none' && stroke && stroke !== 'currentColor';
    });
    const labels = series.map((path, i) => path.dataset.series || `series ${i + 1}`);
    const lines = series.map(path => points(path.getAttribute('d') || ''));
    const sampled = lines.map(samples);
    // a label's lines are tspans broken at spaces: join them with one
    const text = [...svg.querySelectorAll('text')].map(t => {
      const spans = [...t.querySelectorAll('tspan')];
      return spans.length ? spans.map(span => span.textContent).join(' ') : t.textContent;
    }).join(' ');
    for (const [i, mine] of sampled.entries()) {
      if (!mine.length) continue;
      const hits = new Map();
      for (const [j, theirs] of sampled.entries()) {
        if (j === i) continue;
        const row = mine.map(point => near(point, lines[j], tolerance));
        // of two lines that run along each other whole, the later one hides the other
        const mutual = row.every(Boolean)
          && theirs.every(point => near(point, lines[i], tolerance));
        if (!(j > i && mutual)) hits.set(j, row);
      }
      if (!hits.size || !mine.every((_, k) => [...hits.values()].some(row => row[k]))) continue;
      // the fewest series that cover it, the one covering most first
      const left = new Set(mine.keys()), names = [];
      while (left.size) {
        let best = null, most = -1;
        for (const [j, row] of hits) {
          const count = [...left].filter(k => row[k]).length;
          if (count > most) { best = j; most = count; }
        }
        names.push(labels[best]);
        for (const k of [...left]) if (hits.get(best)[k]) left.delete(k);
      }
      const said = (series[i].dataset.overlaps || '').split(', ').filter(Boolean);
      const named = said.slice(0, 2).every(name => labels.includes(name) && text.includes(name));
      if (!said.length || !named) {
        problems.push(`figure ${index + 1}: ${labels[i]} is drawn entirely along `
          + `${names.join(', ')}, and the figure does not say so`);
      }
    }
  }
  return problems;
}
"""

LABELS_JS = """
(slack) => {
  const problems = [];
  // a key's swatch has no other label nearer than this (px) on its left
  const KEY_GAP = 8;
  const shown = el => el.getClientRects().length > 0;
  const words = el => el.textContent.trim().replace(/\\s+/g, ' ').slice(0, 30);
  // A box shrunk by `slack` px on every side: a touch at the edge is no overlap.
  const box = el => {
    const r = el.getBoundingClientRect();
    return { left: r.left + slack, right: r.right - slack, top: r.top + slack,
      bottom: r.bottom - slack };
  };
  const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom
    && b.top < a.bottom;
  const inside = (x, y, a) => x > a.left && x < a.right && y > a.top && y < a.bottom;
  for (const [index, svg] of [...document.querySelectorAll('article .cb-figure svg')].entries()) {
    if (!shown(svg)) continue;
    const name = `figure ${index + 1}`;
    // each line of a label is a box of its own: a tspan, or the text when it has none
    const labels = [...svg.querySelectorAll('text')]
      .flatMap(text => text.querySelector('tspan') ? [...text.querySelectorAll('tspan')] : [text])
      .filter(el => el.textContent.trim())
      // a label turned by other than a right angle has no box to compare: its bounds
      // are a rectangle around the slanted text (the column heads of a grid)
      .filter(el => {
        const transform = el.closest('text').getAttribute('transform') || '';
        const turn = /rotate\\((-?[0-9.]+)/.exec(transform);
        return !turn || Number(turn[1]) % 90 === 0;
      })
      .map(el => ({ el, box: box(el) }));
    for (let i = 0; i < labels.length; i++) {
      for (let j = i + 1; j < labels.length; j++) {
        if (meet(labels[i].box, labels[j].box)) {
          problems.push(`${name}: "${words(labels[i].el)}" overlaps "${words(labels[j].el)}"`);
        }
      }
    }
    // a key's swatch with another label just left of it, on its line: the two read as one
    // ("72 ■ kept" under a strip of 72 cells), the swatch keying the wrong words
    for (const swatch of svg.querySelectorAll('rect')) {
      const s = swatch.getBoundingClientRect();
      // a swatch: small, and its label next (a data point's square marker is neither)
      const keyed = swatch.nextElementSibling && swatch.nextElementSibling.tagName === 'text';
      if (!keyed || s.width === 0 || s.width > 14 || s.height > 14) continue;
      for (const { el, box: b } of labels) {
        const gap = s.left - (b.right + slack);
        if (gap > -s.width && gap < KEY_GAP && b.top < s.bottom && s.top < b.bottom) {
          problems.push(`${name}: a key's swatch stands ${gap.toFixed(1)} px after "${words(el)}"`);
        }
      }
    }
    // a data line or bar through a label: series paths, dashed reference lines, filled bars
    const ctm = svg.getScreenCTM();
    const marks = [...svg.querySelectorAll('path.cb-series, line[stroke-dasharray], rect')]
      .filter(el => !(el.tagName === 'line' && el.getAttribute('stroke-opacity')))
      .filter(el => el.tagName !== 'rect' || (el.getAttribute('fill') || 'none') !== 'none');
    for (const { el, box: b } of labels) {
      for (const mark of marks) {
        let through = false;
        if (mark.tagName === 'rect') {
          const r = mark.getBoundingClientRect();
          // a swatch beside its label is not under it
          through = r.width > 14 && r.height > 14 && meet(b, r);
        } else {
          const length = mark.getTotalLength();
          for (let s = 0; s <= length && !through; s += 1) {
            const p = mark.getPointAtLength(s).matrixTransform(mark.getScreenCTM() || ctm);
            through = inside(p.x, p.y, b);
          }
        }
        if (through) {
          const what = mark.dataset.series ? `the line of ${mark.dataset.series}`
            : mark.tagName === 'rect' ? 'a bar' : 'a reference line';
          problems.push(`${name}: ${what} runs through "${words(el)}"`);
          break;
        }
      }
    }
  }
  return [...new Set(problems)];
}
"""

IDS_JS = """
() => {
  const problems = [];
  // The ids a picture uses, or names its accessible name by: each must be the page's only one.
  const wanted = new Set();
  for (const el of document.querySelectorAll('article svg [id], article svg[id]')) {
    wanted.add(el.id);
  }
  for (const el of document.querySelectorAll('[aria-labelledby], [aria-describedby]')) {
    for (const attribute of ['aria-labelledby', 'aria-describedby']) {
      for (const id of (el.getAttribute(attribute) || '').split(/\\s+/)) if (id) wanted.add(id);
    }
  }
  const seen = new Map();
  for (const el of document.querySelectorAll('[id]')) {
    if (wanted.has(el.id)) seen.set(el.id, (seen.get(el.id) || 0) + 1);
  }
  for (const [id, count] of seen) if (count > 1) problems.push(`id "${id}" is used ${count} times`);
  const names = new Map();
  const pictures = [...document.querySelectorAll('article svg[aria-labelledby]')];
  for (const [index, svg] of pictures.entries()) {
    const ids = svg.getAttribute('aria-labelledby').split(/\\s+/).filter(Boolean);
    for (const id of ids) {
      const target = document.getElementById(id);
      if (!target || !svg.contains(target)) {
        problems.push(`picture ${index + 1}: aria-labelledby names "${id}", which is not its own`);
      }
    }
    if (svg.getClientRects().length === 0) continue;
    const name = ids.map(id => document.getElementById(id)?.textContent || '').join(' ').trim();
    if (names.has(name)) {
      problems.push(
        `pictures ${names.get(name)} and ${index + 1} share the name "${name.slice(0, 50)}"`);
    }
    else names.set(name, index + 1);
  }
  return problems;
}
"""

ALT_JS = """
(missing) => [...document.querySelectorAll('article img:not([aria-hidden="true"])')]
  .filter(img => {
    const alt = (img.getAttribute('alt') || '').trim();
    return !alt || alt === missing;
  })
  .map(img => 'an image without a description of its own: '
    + `alt=${JSON.stringify(img.getAttribute('alt'))}`
    + ` (${(img.getAttribute('src') || '').slice(0, 30)})`)
"""

RUNNER_JS = """
() => [...document.querySelectorAll('article .jupyter-wrapper .jp-CodeCell')]
  .map((cell, index) => ({ cell, index }))
  .filter(({ cell }) => !cell.querySelector('button.cb-run, .cb-run-why'))
  .map(({ cell, index }) => `code cell ${index + 1}: no Run button and no note why it cannot run: `
    + (cell.querySelector('pre')?.textContent || '').trim().split('\\n')[0].slice(0, 60))
"""

VERDICT_JS = """
() => {
  const problems = [];
  for (const div of document.querySelectorAll('div[data-cb-checker="true"]')) {
    const panel = div._cbPanel || (div.nextElementSibling?.classList.contains('cb-run-result')
      ? div.nextElementSibling : null);
    if (!panel || panel.dataset.status === 'busy' || panel.dataset.status === 'error'
        || panel.dataset.status === 'stopped') continue;
    const block = `block ${Number(div.dataset.cbOrder) + 1}`;
    const printed = panel.querySelector('.cb-run-output')?.textContent || '';
    const verdict = panel.querySelector('.cb-run-verdict')?.textContent || '';
    const wanted = /\\bNEEDS_WORK\\b/.test(printed) ? 'needs_work'
      : /\\bPASS\\b/.test(printed) ? 'pass' : null;
    if (!wanted) continue;
    // a PASS the checker gave on code the page ships (its solution, its first attempt)
    // is shown as a PASS too, with what it was run on
    const passes = ['pass', 'solution', 'shipped'];
    const shown = wanted === 'pass' && passes.includes(panel.dataset.status)
      ? 'pass' : panel.dataset.status;
    if (shown !== wanted) {
      const word = wanted === 'pass' ? 'PASS' : 'NEEDS_WORK';
      problems.push(`${block}: printed ${word}, shown as "${verdict.trim().slice(0, 50)}"`
        + ` (${panel.dataset.status})`);
      continue;
    }
    const border = getComputedStyle(panel).borderLeftColor;
    const [r, g, b] = (border.match(/\\d+/g) || []).map(Number);
    if (wanted === 'pass' && !(g > r && g > b)) {
      problems.push(`${block}: PASS is not shown green (${border})`);
    }
    const says = wanted === 'pass' ? 'PASS' : 'NEEDS_WORK';
    if (!verdict.includes(says)) problems.push(`${block}: the verdict does not say ${says}`);
  }
  return problems;
}
"""


def figure_fit_problems(
    page: Page, min_px: float = MIN_TEXT_PX, min_span: float = MIN_SPAN
) -> list[str]:
    """Figures that do not span their column, show text under `min_px`, or cut text off."""
    return list(page.evaluate(FIGURE_FIT_JS, [min_px, min_span]))


def series_problems(page: Page, pixels: float = ONE_PIXEL) -> list[str]:
    """Series drawn entirely along other series (every point within `pixels` CSS
    pixels of them) without the figure saying so."""
    return list(page.evaluate(SERIES_JS, pixels))


def label_problems(page: Page, slack: float = 1.0) -> list[str]:
    """Labels of a shown figure that overlap each other, or that a series line, a
    dashed reference line or a bar runs through (boxes shrunk by `slack` px)."""
    return list(page.evaluate(LABELS_JS, slack))


def id_problems(page: Page) -> list[str]:
    """Ids used twice, pictures named by another's title, and shared accessible names."""
    return list(page.evaluate(IDS_JS))


def alt_problems(page: Page) -> list[str]:
    """Images with no alt text, or with nbconvert's placeholder (an image hidden from
    assistive technology, such as the code editor's cursor buffers, needs none)."""
    return list(page.evaluate(ALT_JS, NO_DESCRIPTION))


def runner_problems(page: Page) -> list[str]:
    """Notebook code cells with neither a Run button nor a note why not."""
    return list(page.evaluate(RUNNER_JS))


def verdict_problems(page: Page) -> list[str]:
    """Checker blocks, once run, not showing the verdict they printed."""
    return list(page.evaluate(VERDICT_JS))
