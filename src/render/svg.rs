//! Inline SVG figures for the HTML report, drawn by our own code (no script, no fonts, no
//! external anything). The markup is maud's, so every label, title and category is escaped
//! where it is spliced in; an element with no content is closed explicitly (`<rect …></rect>`),
//! which both the HTML parser (SVG is foreign content there) and an XML reader accept.
//!
//! A point whose value is `None` is a gap drawn as a hatched, dashed outline labelled
//! "not measured", never a bar of height 0: a reader must be able to tell "zero" from "we
//! could not measure it".

use maud::{Markup, html};

use super::table::{NOT_MEASURED, fmt_num};
use crate::report::{Chart, ChartKind, Hints, Point};

const W: f64 = 760.0;
const LEFT: f64 = 52.0;
const RIGHT: f64 = 12.0;
const TOP: f64 = 16.0;
const PLOT_H: f64 = 200.0;
/// Above this many points, axis labels are ledger positions (1, 250, 500…) set horizontally:
/// hundreds of slanted record names are stripes, not labels. Tooltips keep every name.
const DENSE: usize = 40;
/// A histogram is drawn on at least this many bin widths, so one bin is a bar, not a block.
const MIN_BIN_SLOTS: usize = 10;
/// Colour of bars without a category.
const BAR: &str = "#3a6ea5";
/// Colours for categories without a tone, in order of first appearance
/// (Okabe–Ito, readable by most colour-blind readers).
const PALETTE: [&str; 7] = ["#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#f0e442"];

/// The stylesheet of the charts' marks, shared by every page that draws them (the HTML report,
/// the submission's certificate).
pub(crate) const STYLE: &str = "\
svg.chart { width: 100%; height: auto; display: block; font-family: system-ui, -apple-system, \"Segoe UI\", Roboto, Arial, \"DejaVu Sans\", sans-serif; }\n\
svg .tick { font-size: 11px; fill: #5f6b76; }\n\
svg .axis { font-size: 12px; fill: #3b444c; }\n\
svg .val { font-size: 11px; fill: #1d2329; font-weight: 600; }\n\
svg .gap { font-size: 10px; fill: #4a4a4a; font-style: italic; }\n\
svg .cell { font-size: 12px; fill: #fff; font-weight: 700; }\n\
svg .cell.dark { fill: #000; }\n\
svg .cell.nm { font-style: italic; font-weight: 400; }\n\
svg .legend { font-size: 12px; fill: #1d2329; }\n";

/// The SVG for `c`.
pub(crate) fn chart(c: &Chart, hints: &Hints) -> Markup {
    match c.chart {
        ChartKind::Bars => bars(c, false, hints),
        ChartKind::Histogram => bars(c, true, hints),
        ChartKind::Timeline => timeline(c, hints),
    }
}

struct Colors<'a> {
    hints: &'a Hints,
    seen: Vec<String>,
}

impl Colors<'_> {
    fn of(&mut self, cat: Option<&str>) -> String {
        let Some(cat) = cat else { return BAR.to_owned() };
        if let Some(c) = self.hints.tone(cat).and_then(|t| super::colors(t).hex) {
            return c.to_owned();
        }
        let i = self.seen.iter().position(|s| s == cat).unwrap_or_else(|| {
            self.seen.push(cat.to_owned());
            self.seen.len() - 1
        });
        PALETTE[i % PALETTE.len()].to_owned()
    }
}

/// A coordinate to one decimal, as every mark is placed.
fn d1(v: f64) -> String {
    format!("{v:.1}")
}

/// The id of the chart's "not measured" hatching, unique on the page.
fn pattern_id(c: &Chart) -> String {
    format!("nm-{}", super::slug(&c.id))
}

/// The `<svg>` element around `body`: its size, its accessible name and the hatching `pid`.
fn frame(c: &Chart, height: f64, pid: &str, body: &Markup) -> Markup {
    html! {
        svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox={ "0 0 " (W) " " (height) } role="img"
            aria-label=(c.title) {
            title { (c.title) }
            defs {
                pattern id=(pid) width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)" {
                    rect width="6" height="6" fill="#f4f4f4" {}
                    line x1="0" y1="0" x2="0" y2="6" stroke="#c4c4c4" stroke-width="2" {}
                }
            }
            (body)
        }
    }
}

/// A round axis maximum and tick step for `max`.
fn ticks(max: f64) -> (f64, f64) {
    if max <= 0.0 || !max.is_finite() {
        return (1.0, 1.0);
    }
    let raw = max / 4.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0].iter().map(|m| m * mag).find(|s| *s >= raw).unwrap_or(10.0 * mag);
    let step = if step < 1.0 && max >= 1.0 { 1.0 } else { step };
    ((max / step).ceil() * step, step)
}

/// Which labels to print so they do not overlap: every `k`-th.
fn label_stride(n: usize, slot: f64, longest: usize) -> usize {
    let needed = if longest > 3 { 16.0 } else { 7.0 * longest.max(1) as f64 + 6.0 };
    ((needed / slot).ceil() as usize).max(1).min(n.max(1))
}

/// For a dense axis: a round step (1, 2, 5 × 10^k) giving at most about ten position labels.
fn position_step(n: usize) -> usize {
    let mut magnitude = 1;
    loop {
        for m in [1, 2, 5] {
            if n / (m * magnitude) <= 10 {
                return m * magnitude;
            }
        }
        magnitude *= 10;
    }
}

/// Whether point `i` of `n` gets an axis label, and which: the record's own name on a sparse
/// axis, its 1-based position on a dense one (the first point and every round step).
fn axis_label(i: usize, n: usize, stride: usize, name: &str) -> Option<String> {
    if n > DENSE {
        let step = position_step(n);
        (i == 0 || (i + 1).is_multiple_of(step)).then(|| (i + 1).to_string())
    } else {
        i.is_multiple_of(stride).then(|| name.to_owned())
    }
}

/// Whether the axis labels are slanted, the room under the plot they need, and the longest: slanted labels
/// (9 to `DENSE` points, some longer than 3 characters) take `slanted` plus their length;
/// more than `DENSE` points are labelled by position (`dense`); otherwise `plain`.
fn label_room(c: &Chart, slanted: f64, dense: f64, plain: f64) -> (bool, f64, usize) {
    let n = c.points.len();
    let longest = c.points.iter().map(|p| p.label.chars().count()).max().unwrap_or(1);
    let rotate = n > 8 && n <= DENSE && longest > 3;
    let room = if rotate {
        slanted + 5.5 * longest.min(18) as f64
    } else if n > DENSE {
        dense
    } else {
        plain
    };
    (rotate, room, longest)
}

/// Where the bars go: each point's slot width, the offset of the first slot and a bar's width.
struct BarSlots {
    slot: f64,
    offset: f64,
    bw: f64,
}

impl BarSlots {
    fn new(n: usize, adjacent: bool) -> Self {
        // Histogram bins keep a bin's width even when there are few of them, centred.
        let slots = if adjacent { n.max(MIN_BIN_SLOTS) } else { n.max(1) };
        let slot = (W - LEFT - RIGHT) / slots as f64;
        let offset = slot * (slots - n.min(slots)) as f64 / 2.0;
        let bw = if adjacent { slot - 1.0_f64.min(slot * 0.1) } else { slot * 0.72 };
        BarSlots { slot, offset, bw }
    }
}

fn bars(c: &Chart, adjacent: bool, hints: &Hints) -> Markup {
    let n = c.points.len();
    let (rotate, bottom, longest) = label_room(c, 30.0, 40.0, 34.0);
    let height = TOP + PLOT_H + bottom;
    let pid = pattern_id(c);
    let plot_w = W - LEFT - RIGHT;
    let max = c.points.iter().filter_map(|p| p.value).fold(0.0_f64, f64::max);
    let (top, step) = ticks(max);
    let at = BarSlots::new(n, adjacent);
    let stride = label_stride(n, at.slot, longest.min(18));
    let mut colors = Colors { hints, seen: Vec::new() };
    let body = html! {
        (grid(top, step))
        text class="axis" transform={ "translate(14 " (d1(TOP + PLOT_H / 2.0)) ") rotate(-90)" } text-anchor="middle" {
            (c.y_label)
        }
        @if n == 0 {
            text x=(d1(LEFT + plot_w / 2.0)) y=(d1(TOP + PLOT_H / 2.0)) class="gap" text-anchor="middle" { "no data" }
        }
        @for (i, p) in c.points.iter().enumerate() {
            @let cx = LEFT + at.offset + at.slot * (i as f64 + 0.5);
            (bar(p, i, n, &at, top, &pid, &mut colors))
            @if let Some(label) = axis_label(i, n, stride, &p.label) {
                (x_label(cx, TOP + PLOT_H, &label, rotate))
            }
        }
        (dense_caption(c, n, TOP + PLOT_H + 30.0))
        line x1=(LEFT) x2=(W - RIGHT) y1=(d1(TOP + PLOT_H)) y2=(d1(TOP + PLOT_H)) stroke="#555" {}
    };
    frame(c, height, &pid, &body)
}

/// The y axis of a bar chart: a grid line and a label at every tick up to `top`.
fn grid(top: f64, step: f64) -> Markup {
    let y = |v: f64| TOP + PLOT_H - (v / top) * PLOT_H;
    let mut marks = Vec::new();
    let mut t = 0.0;
    while t <= top + step / 2.0 {
        marks.push(t);
        t += step;
    }
    html! {
        @for t in marks {
            line x1=(LEFT) x2=(W - RIGHT) y1=(d1(y(t))) y2=(d1(y(t))) stroke="#e3e3e3" {}
            text x=(LEFT - 6.0) y=(d1(y(t) + 4.0)) class="tick" text-anchor="end" { (fmt_num(t)) }
        }
    }
}

/// Point `i` of `n` as a bar of its value, or as a hatched gap when it was not measured.
fn bar(p: &Point, i: usize, n: usize, at: &BarSlots, top: f64, pid: &str, colors: &mut Colors<'_>) -> Markup {
    let y = |v: f64| TOP + PLOT_H - (v / top) * PLOT_H;
    let x = LEFT + at.offset + at.slot * i as f64 + (at.slot - at.bw) / 2.0;
    let cx = LEFT + at.offset + at.slot * (i as f64 + 0.5);
    match p.value {
        Some(v) => html! {
            rect x=(d1(x)) y=(d1(y(v))) width=(d1(at.bw)) height=(d1((v / top) * PLOT_H))
                fill=(colors.of(p.category.as_deref())) {
                title { (p.label) ": " (fmt_num(v)) }
            }
            @if n <= 30 {
                text x=(d1(cx)) y=(d1(y(v) - 4.0)) class="val" text-anchor="middle" { (fmt_num(v)) }
            }
        },
        None => html! {
            rect x=(d1(x)) y=(TOP) width=(d1(at.bw)) height=(PLOT_H) fill={ "url(#" (pid) ")" } stroke="#9a9a9a"
                stroke-dasharray="3 3" {
                title { (p.label) ": " (NOT_MEASURED) }
            }
            @if at.slot >= 11.0 {
                text class="gap" transform={ "translate(" (d1(cx + 3.5)) " " (d1(TOP + PLOT_H / 2.0)) ") rotate(-90)" }
                    text-anchor="middle" { (NOT_MEASURED) }
            }
        },
    }
}

fn x_label(cx: f64, base: f64, label: &str, rotate: bool) -> Markup {
    let shown: String = if label.chars().count() > 18 {
        label.chars().take(17).chain(std::iter::once('…')).collect()
    } else {
        label.to_owned()
    };
    html! {
        @if rotate {
            text class="tick" transform={ "translate(" (d1(cx + 3.0)) " " (d1(base + 12.0)) ") rotate(-45)" }
                text-anchor="end" { (shown) }
        } @else {
            text x=(d1(cx)) y=(d1(base + 16.0)) class="tick" text-anchor="middle" { (shown) }
        }
    }
}

/// (category, count) in order of first appearance; (x, row) of each entry; rows taken.
type Legend = (Vec<(String, usize)>, Vec<(f64, f64)>, f64);

/// The timeline's legend: its categories with their counts, where each entry goes (x, row)
/// and how many rows it takes.
fn timeline_legend(c: &Chart, plot_w: f64) -> Legend {
    // Legend: one entry per category in order of first appearance, with counts.
    let mut cats: Vec<(String, usize)> = Vec::new();
    for p in &c.points {
        let key = p.category.clone().unwrap_or_else(|| NOT_MEASURED.to_owned());
        match cats.iter_mut().find(|(k, _)| *k == key) {
            Some(e) => e.1 += 1,
            None => cats.push((key, 1)),
        }
    }
    // Legend entries flow left to right, each as wide as its text, wrapping at the plot edge.
    let mut places: Vec<(f64, f64)> = Vec::new();
    let (mut lx, mut row) = (0.0_f64, 0.0_f64);
    for (cat, count) in &cats {
        let w = 20.0 + 7.2 * (cat.chars().count() + 4 + count.to_string().len()) as f64 + 18.0;
        if lx > 0.0 && lx + w > plot_w {
            lx = 0.0;
            row += 1.0;
        }
        places.push((LEFT + lx, row));
        lx += w;
    }
    (cats, places, row + 1.0)
}

/// The height of a timeline's strip of cells.
const STRIP_H: f64 = 44.0;

fn timeline(c: &Chart, hints: &Hints) -> Markup {
    let n = c.points.len();
    let (rotate, label_h, longest) = label_room(c, 18.0, 34.0, 24.0);
    let plot_w = W - LEFT - RIGHT;
    let (cats, places, legend_rows) = timeline_legend(c, plot_w);
    let height = TOP + STRIP_H + label_h + 12.0 + legend_rows * 20.0;
    let pid = pattern_id(c);
    let slot = plot_w / n.max(1) as f64;
    let stride = label_stride(n, slot, longest.min(18));
    let mut colors = Colors { hints, seen: Vec::new() };
    let ly = TOP + STRIP_H + label_h + 12.0;
    let body = html! {
        text class="axis" x=(d1(LEFT - 6.0)) y=(d1(TOP + STRIP_H / 2.0 + 4.0)) text-anchor="end" {
            (short(&c.y_label, 8))
        }
        @if n > DENSE {
            (timeline_runs(c, &pid, slot, &mut colors))
            @for i in 0..n {
                @if let Some(label) = axis_label(i, n, stride, &c.points[i].label) {
                    (x_label(LEFT + slot * i as f64 + slot / 2.0, TOP + STRIP_H - 4.0, &label, false))
                }
            }
        } @else {
            @for (i, p) in c.points.iter().enumerate() {
                (timeline_cell(c, p, LEFT + slot * i as f64, slot, &pid, &mut colors))
                @if i % stride == 0 {
                    (x_label(LEFT + slot * i as f64 + slot / 2.0, TOP + STRIP_H - 4.0, &p.label, rotate))
                }
            }
        }
        (dense_caption(c, n, TOP + STRIP_H + 28.0))
        @for ((cat, count), (lx, row)) in cats.iter().zip(places) {
            @let yy = ly + row * 20.0;
            @let fill = if cat == NOT_MEASURED { format!("url(#{pid})") } else { colors.of(Some(cat)) };
            rect x=(d1(lx)) y=(d1(yy - 11.0)) width="14" height="14" fill=(fill) stroke="#777" stroke-width="0.5" {}
            text x=(d1(lx + 20.0)) y=(d1(yy)) class="legend" { (cat) " × " (count) }
        }
    };
    frame(c, height, &pid, &body)
}

/// One point of a sparse timeline at `x`: a cell in its category's colour with its value, or
/// a hatched gap when it has no category.
fn timeline_cell(c: &Chart, p: &Point, x: f64, slot: f64, pid: &str, colors: &mut Colors<'_>) -> Markup {
    let gap = if slot > 6.0 { 1.5 } else { 0.0 };
    let value = p.value.map_or_else(|| NOT_MEASURED.to_owned(), fmt_num);
    let (text, class) = p.value.map_or(("n/m".to_owned(), "cell nm"), |v| (fmt_num(v), "cell"));
    html! {
        @if let Some(cat) = &p.category {
            @let fill = colors.of(Some(cat));
            @let class = if dark_text_on(&fill) { format!("{class} dark") } else { class.to_owned() };
            rect x=(d1(x + gap / 2.0)) y=(TOP) width=(d1(slot - gap)) height=(STRIP_H) fill=(fill) {
                title { (p.label) ": " (cat) " (" (c.y_label) ": " (value) ")" }
            }
            @if slot >= 16.0 {
                text x=(d1(x + slot / 2.0)) y=(d1(TOP + STRIP_H / 2.0 + 4.5)) class=(class) text-anchor="middle" {
                    (text)
                }
            }
        } @else {
            rect x=(d1(x + gap / 2.0)) y=(TOP) width=(d1(slot - gap)) height=(STRIP_H) fill={ "url(#" (pid) ")" }
                stroke="#9a9a9a" stroke-dasharray="3 3" {
                title { (p.label) ": " (NOT_MEASURED) }
            }
        }
    }
}

/// Whether black text reads better than white on `fill` (`#rrggbb`): a cell's label takes the
/// one with the higher WCAG contrast ratio, so a light palette colour (yellow, sky blue) does
/// not carry white text.
fn dark_text_on(fill: &str) -> bool {
    let hex = fill.trim_start_matches('#');
    let channel = |i: usize| {
        let c = hex.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()).map_or(0.0, |v| f64::from(v) / 255.0);
        if c <= 0.039_28 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
    };
    let l = 0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4);
    (l + 0.05) / 0.05 > 1.05 / (l + 0.05)
}

/// On a dense axis, what the numbers under it are.
fn dense_caption(c: &Chart, n: usize, y: f64) -> Markup {
    let what = if c.x_label.is_empty() { "point" } else { c.x_label.as_str() };
    html! {
        @if n > DENSE {
            text x=(d1(W - RIGHT)) y=(d1(y)) class="tick" text-anchor="end" {
                (what) " position (1–" (n) "); hover a mark for its name"
            }
        }
    }
}

/// A dense timeline as runs of one category: 1,000 one-pixel marks become a few dozen
/// rectangles, each titled with its span, so the strip stays a strip.
fn timeline_runs(c: &Chart, pid: &str, slot: f64, colors: &mut Colors<'_>) -> Markup {
    let mut runs = Vec::new();
    let mut i = 0;
    while i < c.points.len() {
        let cat = c.points[i].category.as_deref();
        let mut j = i + 1;
        while j < c.points.len() && c.points[j].category.as_deref() == cat {
            j += 1;
        }
        let fill = match cat {
            Some(k) => colors.of(Some(k)),
            None => format!("url(#{pid})"),
        };
        let span = if j - i == 1 {
            format!("{} {}", i + 1, c.points[i].label)
        } else {
            format!("{}–{} ({} to {})", i + 1, j, c.points[i].label, c.points[j - 1].label)
        };
        runs.push((i, j, fill, span, cat.unwrap_or(NOT_MEASURED)));
        i = j;
    }
    html! {
        @for (i, j, fill, span, cat) in runs {
            rect x=(format!("{:.2}", LEFT + slot * i as f64)) y=(TOP) width=(format!("{:.2}", slot * (j - i) as f64))
                height=(STRIP_H) fill=(fill) {
                title { (span) ": " (cat) }
            }
        }
    }
}

fn short(s: &str, n: usize) -> String {
    if s.chars().count() > n { s.chars().take(n - 1).chain(std::iter::once('…')).collect() } else { s.to_owned() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Point;

    fn chart(kind: ChartKind, values: &[Option<f64>]) -> Chart {
        Chart {
            id: "t".into(),
            title: "T".into(),
            chart: kind,
            y_label: "n".into(),
            x_label: String::new(),
            category_label: String::new(),
            points: values
                .iter()
                .enumerate()
                .map(|(i, v)| Point { label: format!("{}", i + 1), value: *v, category: None })
                .collect(),
            note: None,
        }
    }

    #[test]
    fn a_missing_value_is_a_labelled_gap_not_a_zero_bar() {
        let svg = super::chart(&chart(ChartKind::Bars, &[Some(3.0), None, Some(0.0)]), &Hints::default()).into_string();
        assert_eq!(svg.matches(NOT_MEASURED).count(), 2, "tooltip and label for the one gap: {svg}");
        assert!(svg.contains("fill=\"url(#nm-t)\""));
        // The measured zero is a real bar of height 0, distinct from the gap.
        assert!(svg.contains("height=\"0.0\" fill=\"#3a6ea5\""));
        let svg = super::chart(&chart(ChartKind::Bars, &[Some(1.0), Some(2.0)]), &Hints::default()).into_string();
        assert!(!svg.contains(NOT_MEASURED));
    }

    fn named(kind: ChartKind, n: usize) -> Chart {
        let mut c = chart(kind, &vec![Some(1.0); n]);
        for (i, p) in c.points.iter_mut().enumerate() {
            p.label = format!("7be2b8cff292-r{i}");
            p.category = Some(if i % 4 == 3 { "BLOCKED" } else { "PASS" }.to_owned());
        }
        c
    }

    #[test]
    fn a_thousand_points_get_a_few_horizontal_position_labels() {
        for kind in [ChartKind::Bars, ChartKind::Timeline] {
            let svg = super::chart(&named(kind, 1000), &Hints::default()).into_string();
            assert!(!svg.contains("rotate(-45)"), "{kind:?}: no slanted labels");
            // 1, then 100, 200 … 1000: eleven position labels and the caption.
            let positions = svg.matches("class=\"tick\" text-anchor=\"middle\">").count();
            assert_eq!(positions, 11, "{kind:?}");
            assert!(svg.contains(">100</text>") && svg.contains("position (1–1000)"));
            assert!(svg.contains("7be2b8cff292-r999"), "{kind:?}: names stay in tooltips");
        }
        assert_eq!(position_step(1000), 100);
        assert_eq!(position_step(300), 50);
        assert_eq!(position_step(41), 5);
    }

    #[test]
    fn a_dense_timeline_is_drawn_as_runs() {
        let mut c = named(ChartKind::Timeline, 1000);
        for p in &mut c.points[..500] {
            p.category = Some("PASS".into());
        }
        let svg = super::chart(&c, &Hints::default()).into_string();
        // 503 PASS in one run (the first three of the pattern join it), then 125 BLOCKED
        // marks with 124 PASS runs between them.
        assert_eq!(svg.matches("<rect x=").count() - 2, 1 + 125 + 124, "runs, besides two legend swatches");
        assert!(svg.contains("1–503 (7be2b8cff292-r0 to 7be2b8cff292-r502): PASS"));
    }

    #[test]
    fn one_bin_stays_a_bar() {
        let svg = super::chart(&chart(ChartKind::Histogram, &[Some(20.0)]), &Hints::default()).into_string();
        let w = svg.split("width=\"").nth(2).and_then(|s| s.split('"').next()).and_then(|s| s.parse::<f64>().ok());
        let plot = W - LEFT - RIGHT;
        assert!(w.is_some_and(|w| w < plot / 5.0), "bar width {w:?} of a {plot} px plot");
    }

    #[test]
    fn cell_labels_take_the_ink_that_reads_on_their_colour() {
        // White reads on the tones' colours and the dark palette blue; black on the light ones.
        for fill in ["#1a7f37", "#c62828", "#0072b2", "#3a6ea5"] {
            assert!(!dark_text_on(fill), "{fill}");
        }
        for fill in ["#b7791f", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#f0e442"] {
            assert!(dark_text_on(fill), "{fill}");
        }
    }

    #[test]
    fn ticks_are_round() {
        assert_eq!(ticks(7.0), (8.0, 2.0));
        assert_eq!(ticks(0.0), (1.0, 1.0));
        assert_eq!(ticks(100.0), (100.0, 25.0));
        assert_eq!(ticks(3.0), (3.0, 1.0));
    }
}
