// The contrast probe of tests/it/contrast.rs, run by headless Chromium after layout. For every
// element that holds text of its own it takes the computed foreground (`color`, or `fill` for
// SVG text) and the effective background: the layers behind it up to the first opaque one
// (background colours, every stop of a gradient, for SVG text the shape painted under it, every
// colour of a hatching pattern), composited with their alpha; the foreground's own alpha and
// the opacity of its ancestors are composited over that. The WCAG 2.x contrast ratio is taken
// against the worst background candidate and compared with 4.5, or 3 for large text (24 px, or
// 18.66 px bold). The result is JSON in a `pre` element with the id contrast-probe.
addEventListener('load', () => {
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 1;
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  // Any CSS colour as [r, g, b, a] (0-255, alpha 0-1); the canvas normalises every syntax.
  const parse = (css) => {
    const m = /^rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:\s*[,/]\s*([\d.]+%?))?\s*\)$/.exec(css.trim());
    if (m) {
      let a = m[4] === undefined ? 1 : m[4].endsWith('%') ? parseFloat(m[4]) / 100 : parseFloat(m[4]);
      return [+m[1], +m[2], +m[3], a];
    }
    ctx.clearRect(0, 0, 1, 1);
    ctx.fillStyle = '#000';
    ctx.fillStyle = css;
    ctx.fillRect(0, 0, 1, 1);
    const d = ctx.getImageData(0, 0, 1, 1).data;
    return [d[0], d[1], d[2], d[3] / 255];
  };
  const colours = (text) => (text.match(/(rgba?|color|hsla?|oklch|oklab|lab|lch)\([^()]*\)|#[0-9a-fA-F]{3,8}\b/g) || []).map(parse);
  const over = (top, below) => {
    const a = top[3];
    return [0, 1, 2].map((i) => top[i] * a + below[i] * (1 - a)).concat([1]);
  };
  const lum = (c) => {
    const l = c.slice(0, 3).map((v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
    });
    return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2];
  };
  const ratio = (a, b) => {
    const [x, y] = [lum(a), lum(b)];
    return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
  };
  const hex = (c) => '#' + c.slice(0, 3).map((v) => Math.round(v).toString(16).padStart(2, '0')).join('');
  // The layers one element paints behind its text: each a list of candidate colours.
  const layers = (el) => {
    const s = getComputedStyle(el);
    const out = [];
    const bg = parse(s.backgroundColor);
    if (bg[3] > 0) out.push([bg]);
    if (s.backgroundImage && s.backgroundImage !== 'none') {
      const stops = colours(s.backgroundImage);
      if (stops.length) out.push(stops);
    }
    // Painted later than the colour, so it is the upper layer.
    return out.reverse();
  };
  // Candidates for what is painted behind `el`'s text, opaque, in the order of the walk.
  const behind = (start) => {
    const stack = [];
    let opacity = 1;
    for (let el = start; el; el = el.parentElement) {
      if (el !== start) opacity *= parseFloat(getComputedStyle(el).opacity);
      for (const layer of layers(el)) {
        stack.push(layer);
        if (layer.every((c) => c[3] >= 1)) return { stack, opacity };
      }
    }
    stack.push([[255, 255, 255, 1]]);
    return { stack, opacity };
  };
  const composite = (stack) => {
    let base = stack[stack.length - 1].map((c) => over(c, [255, 255, 255, 1]));
    for (let i = stack.length - 2; i >= 0; i--) {
      base = stack[i].flatMap((top) => base.map((b) => over(top, b)));
    }
    return base;
  };
  // For SVG text: the colours of the topmost shape under the middle of its box, if any.
  const shapeUnder = (text) => {
    const svg = text.ownerSVGElement;
    if (!svg) return null;
    const box = text.getBoundingClientRect();
    const [x, y] = [box.left + box.width / 2, box.top + box.height / 2];
    let found = null;
    for (const shape of svg.querySelectorAll('rect, circle, path, polygon')) {
      if (shape.closest('defs, pattern')) continue;
      if (text.compareDocumentPosition(shape) & Node.DOCUMENT_POSITION_FOLLOWING) break;
      const r = shape.getBoundingClientRect();
      if (x >= r.left && x <= r.right && y >= r.top && y <= r.bottom) found = shape;
    }
    if (!found) return null;
    const fill = getComputedStyle(found).fill;
    const ref = /url\(["']?#([^"')]+)["']?\)/.exec(fill);
    if (!ref) return [parse(fill)];
    const pattern = document.getElementById(ref[1]);
    if (!pattern) return null;
    const inks = [];
    for (const part of pattern.querySelectorAll('*')) {
      const ps = getComputedStyle(part);
      if (ps.fill && ps.fill !== 'none' && part.tagName !== 'line') inks.push(parse(ps.fill));
      if (ps.stroke && ps.stroke !== 'none') inks.push(parse(ps.stroke));
    }
    return inks.length ? inks : null;
  };
  const ownText = (el) =>
    [...el.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent).join('').trim();
  const name = (el) => {
    const parts = [];
    for (let e = el; e && e !== document.body && parts.length < 4; e = e.parentElement) {
      parts.unshift(e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.classList.length ? '.' + [...e.classList].join('.') : ''));
    }
    return parts.join(' > ');
  };
  const results = [];
  let headline = null;
  for (const el of document.body.querySelectorAll('*')) {
    if (el.closest('title, style, script, defs, #contrast-probe')) continue;
    const text = ownText(el);
    if (!text) continue;
    const s = getComputedStyle(el);
    const svgText = el instanceof SVGElement;
    let fg = parse(svgText ? s.fill : s.color);
    let size = parseFloat(s.fontSize);
    if (svgText && el.getScreenCTM()) size *= Math.hypot(el.getScreenCTM().a, el.getScreenCTM().b);
    const bold = parseInt(s.fontWeight, 10) >= 700;
    const large = size >= 24 || (bold && size >= 18.66);
    const need = large ? 3 : 4.5;
    const { stack, opacity } = behind(el);
    let bgs = composite(stack);
    if (svgText) {
      const under = shapeUnder(el);
      if (under) bgs = under.flatMap((u) => bgs.map((b) => over(u, b)));
    }
    let worst = null;
    for (const bg of bgs) {
      const f = over([fg[0], fg[1], fg[2], fg[3] * opacity * parseFloat(s.opacity)], bg);
      const r = ratio(f, bg);
      if (!worst || r < worst.ratio) worst = { ratio: r, fg: hex(f), bg: hex(bg) };
    }
    const item = {
      element: name(el), text: text.slice(0, 60), fg: worst.fg, bg: worst.bg,
      ratio: Math.round(worst.ratio * 100) / 100, need, size: Math.round(size * 10) / 10, bold,
      pass: worst.ratio >= need,
    };
    if (!headline && el.tagName === 'H1') headline = item;
    results.push(item);
  }
  // Words of letters broken across lines inside a table cell: a column squeezed until
  // "verdict" reads "ve/rdi/ct". Identifiers and digests may break; words may not.
  const broken = [];
  const range = document.createRange();
  for (const cell of document.querySelectorAll('td, th')) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      for (const m of n.textContent.matchAll(/(?<![\p{L}\p{N}_\/.\-])\p{L}{3,16}(?![\p{L}\p{N}_\/.\-])/gu)) {
        range.setStart(n, m.index);
        range.setEnd(n, m.index + m[0].length);
        const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (lines.size > 1 && broken.length < 20) broken.push(m[0]);
      }
    }
  }
  const out = document.createElement('pre');
  out.id = 'contrast-probe';
  out.textContent = JSON.stringify({
    checked: results.length,
    headline,
    failures: results.filter((r) => !r.pass),
    broken,
    width: { page: document.documentElement.scrollWidth, view: innerWidth },
  });
  document.body.appendChild(out);
});
