//! The Markdown the report carries (check pages, `explain`'s document, notes and summaries) as
//! HTML. pulldown-cmark reads it as CommonMark; the HTML is written here from its events, so
//! every piece of text goes through the one escaper, HTML in the source is shown as text (a
//! report never carries markup of its own), the page keeps its heading levels and relative
//! links point into the repository.

use std::fmt::Write as _;

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};

use super::xml::esc;

/// A Markdown document as HTML: `#` and `##` become `<h3>` and `<h4>` (the page's own headings
/// sit above them), a fenced or indented block `<pre>`, HTML comments are dropped.
pub(crate) fn markdown(md: &str) -> String {
    let mut out = String::new();
    let mut code: Option<String> = None;
    for event in Parser::new_ext(md, Options::empty()) {
        if let Some(block) = code.as_mut() {
            match event {
                Event::Text(t) => block.push_str(&t),
                Event::End(TagEnd::CodeBlock) => {
                    let _ = writeln!(out, "<pre>{}</pre>", esc(block.strip_suffix('\n').unwrap_or(block)));
                    code = None;
                }
                _ => {}
            }
            continue;
        }
        match event {
            Event::Start(Tag::CodeBlock(_)) => code = Some(String::new()),
            other => event_html(&mut out, other),
        }
    }
    out
}

/// One line of text with inline Markdown (`code`, **bold**, [links](target)), without the
/// paragraph around it. A line that would open a block (`# is the tool's number`, `- item`)
/// is read as text: a note or a summary is never a heading or a list.
pub(crate) fn inline(s: &str) -> String {
    let text: Vec<String> = s.split('\n').map(literal_start).collect();
    let mut out = String::new();
    for event in Parser::new_ext(&text.join("\n"), Options::empty()) {
        match event {
            Event::Start(Tag::Paragraph) | Event::End(TagEnd::Paragraph) => {}
            other => event_html(&mut out, other),
        }
    }
    out
}

/// `line` with the marker that would make it a block (heading, quote, list item, fence)
/// backslash-escaped, so CommonMark reads it as the start of a paragraph.
fn literal_start(line: &str) -> String {
    let body = line.trim_start();
    let indent = &line[..line.len() - body.len()];
    let mut chars = body.chars();
    let first = chars.next();
    let second = chars.next();
    let opens_block = match first {
        Some('#') => body.trim_start_matches('#').chars().next().is_none_or(|c| c == ' ' || c == '\t'),
        Some('>') => true,
        Some('-' | '+' | '*') => second.is_none_or(|c| c == ' ' || c == '\t') || body.starts_with("---"),
        Some('`' | '~') => body.starts_with("```") || body.starts_with("~~~"),
        Some('=') => true,
        _ => false,
    };
    if opens_block {
        return format!("{indent}\\{body}");
    }
    // An ordered-list marker: up to nine digits, then `.` or `)` and a space.
    let digits = body.bytes().take_while(u8::is_ascii_digit).count();
    if (1..=9).contains(&digits)
        && let Some(rest) = body.get(digits..)
        && (rest.starts_with(". ") || rest.starts_with(") ") || rest == "." || rest == ")")
    {
        return format!("{indent}{}\\{rest}", &body[..digits]);
    }
    line.to_owned()
}

fn event_html(out: &mut String, event: Event<'_>) {
    match event {
        Event::Start(tag) => start(out, &tag),
        Event::End(tag) => end(out, tag),
        Event::Text(t) => out.push_str(&esc(&t)),
        Event::Code(t) => {
            let _ = write!(out, "<code>{}</code>", esc(&t));
        }
        Event::Html(t) | Event::InlineHtml(t) if !t.trim_start().starts_with("<!--") => out.push_str(&esc(&t)),
        Event::SoftBreak => out.push(' '),
        Event::HardBreak => out.push_str("<br>\n"),
        Event::Rule => out.push_str("<hr>\n"),
        // Comments, and what `Options::empty()` never produces (math, footnotes, task lists).
        _ => {}
    }
}

fn start(out: &mut String, tag: &Tag<'_>) {
    match tag {
        Tag::Paragraph => out.push_str("<p>"),
        Tag::Heading { level, .. } => {
            let _ = write!(out, "<h{}>", heading(*level));
        }
        Tag::Strong => out.push_str("<strong>"),
        Tag::Emphasis => out.push_str("<em>"),
        Tag::Link { dest_url, .. } => {
            let _ = write!(out, "<a href=\"{}\">", esc(&link_target(dest_url)));
        }
        Tag::List(None) => out.push_str("<ul>\n"),
        Tag::List(Some(1)) => out.push_str("<ol>\n"),
        Tag::List(Some(n)) => {
            let _ = writeln!(out, "<ol start=\"{n}\">");
        }
        Tag::Item => out.push_str("<li>"),
        Tag::BlockQuote(_) => out.push_str("<blockquote>\n"),
        // An image would load something: its alt text stands in for it.
        _ => {}
    }
}

fn end(out: &mut String, tag: TagEnd) {
    match tag {
        TagEnd::Paragraph => out.push_str("</p>\n"),
        TagEnd::Heading(level) => {
            let _ = writeln!(out, "</h{}>", heading(level));
        }
        TagEnd::Strong => out.push_str("</strong>"),
        TagEnd::Emphasis => out.push_str("</em>"),
        TagEnd::Link => out.push_str("</a>"),
        TagEnd::List(false) => out.push_str("</ul>\n"),
        TagEnd::List(true) => out.push_str("</ol>\n"),
        TagEnd::Item => out.push_str("</li>\n"),
        TagEnd::BlockQuote(_) => out.push_str("</blockquote>\n"),
        _ => {}
    }
}

/// The HTML heading of a Markdown level: two below, as the page's `<h1>` and `<h2>` are its own.
fn heading(level: HeadingLevel) -> u8 {
    match level {
        HeadingLevel::H1 => 3,
        HeadingLevel::H2 => 4,
        HeadingLevel::H3 => 5,
        _ => 6,
    }
}

/// Doc pages link each other relative to `docs/checks/`; a report file lives elsewhere, so
/// relative targets become addresses in the repository at this version's tag.
fn link_target(target: &str) -> String {
    if target.starts_with("https://") || target.starts_with("http://") || target.starts_with('#') {
        return target.to_owned();
    }
    let mut parts: Vec<&str> = vec!["docs", "checks"];
    for seg in target.split('/') {
        match seg {
            ".." => {
                parts.pop();
            }
            "." | "" => {}
            s => parts.push(s),
        }
    }
    format!("{}/blob/v{}/{}", env!("CARGO_PKG_REPOSITORY"), env!("CARGO_PKG_VERSION"), parts.join("/"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn doc_markdown_subset() {
        let html = super::markdown("# T `x`\n\nA **b** <c>.\n\n```text\n<1>\n```\n\n<!-- gen -->\n");
        assert_eq!(html, "<h3>T <code>x</code></h3>\n<p>A <strong>b</strong> &lt;c&gt;.</p>\n<pre>&lt;1&gt;</pre>\n");
    }

    #[test]
    fn doc_links_point_into_the_repository_at_this_version() {
        let html = super::inline("see [specs §1](../../specs/format.md#cv-x001) and [x](https://e.org/a)");
        let base = format!("{}/blob/v{}", env!("CARGO_PKG_REPOSITORY"), env!("CARGO_PKG_VERSION"));
        assert_eq!(
            html,
            format!(
                "see <a href=\"{base}/specs/format.md#cv-x001\">specs §1</a> and <a href=\"https://e.org/a\">x</a>"
            )
        );
        assert_eq!(super::inline("[not a link"), "[not a link");
    }

    #[test]
    fn a_note_is_never_a_heading_or_a_list() {
        assert_eq!(super::inline("# is the tool's number"), "# is the tool&#39;s number");
        assert_eq!(super::inline("- one\n2. two"), "- one 2. two");
        assert_eq!(super::inline("1) **x**"), "1) <strong>x</strong>");
    }
}
