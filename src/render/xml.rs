//! The escaper of JUnit XML and of the HTML `commonmark.rs` writes from the Markdown's events
//! (the rest of the HTML page and its SVG charts are maud's, which escapes as it splices): the
//! contexts differ only in which characters each must protect.

/// Where escaped text goes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Context {
    /// HTML/SVG content or attribute value: quotes escaped, controls other than newline and
    /// tab replaced.
    Html,
    /// XML element text: characters XML 1.0 cannot carry become U+FFFD.
    XmlText,
    /// XML attribute value: as text, plus quotes and the whitespace attribute-value
    /// normalisation would turn into spaces, as character references.
    XmlAttr,
}

/// `s` made safe for `ctx`.
pub(crate) fn escape(s: &str, ctx: Context) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match (c, ctx) {
            ('&', _) => out.push_str("&amp;"),
            ('<', _) => out.push_str("&lt;"),
            ('>', _) => out.push_str("&gt;"),
            ('"', Context::Html | Context::XmlAttr) => out.push_str("&quot;"),
            ('\'', Context::Html) => out.push_str("&#39;"),
            (c, Context::Html) if c.is_control() && c != '\n' && c != '\t' => out.push('\u{FFFD}'),
            (c, Context::Html) => out.push(c),
            ('\n', Context::XmlAttr) => out.push_str("&#10;"),
            ('\r', Context::XmlAttr) => out.push_str("&#13;"),
            ('\t', Context::XmlAttr) => out.push_str("&#9;"),
            (c, _) => out.push(xml_char(c)),
        }
    }
    out
}

/// Escapes text for HTML and SVG content and attribute values.
pub(crate) fn esc(s: &str) -> String {
    escape(s, Context::Html)
}

fn xml_char(c: char) -> char {
    let ok = matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..);
    if ok { c } else { '\u{FFFD}' }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_context_protects_what_it_must() {
        assert_eq!(esc("<a href=\"x\">&'\r"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;\u{FFFD}");
        assert_eq!(escape("a\"<&>\n\u{1}", Context::XmlAttr), "a&quot;&lt;&amp;&gt;&#10;\u{FFFD}");
        assert_eq!(escape("x<y\u{0}\"'", Context::XmlText), "x&lt;y\u{FFFD}\"'");
    }
}
