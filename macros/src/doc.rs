//! The doc comment, which becomes the tool's description.

use syn::{Attribute, Expr, ExprLit, Lit, Meta};

/// Whether an attribute is a doc attribute (`///`, `/** */`, `#[doc = ...]`, `#[doc(...)]`).
pub(crate) fn is_doc(attr: &Attribute) -> bool {
    attr.path().is_ident("doc")
}

/// The description written in the doc attributes: each line loses the one space that follows
/// `///`, lines are joined with '\n', and the whole is trimmed. `None` when there is no text.
pub(crate) fn description(attrs: &[Attribute]) -> Option<String> {
    let mut lines = Vec::new();
    for attr in attrs {
        if let Meta::NameValue(nv) = &attr.meta
            && nv.path.is_ident("doc")
            && let Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) = &nv.value
        {
            // A `/** */` block is one attribute holding several lines; `split`, not `lines`,
            // so that an empty `///` still counts as a (blank) line.
            for line in s.value().split('\n') {
                let line = line.strip_suffix('\r').unwrap_or(line);
                lines.push(line.strip_prefix(' ').unwrap_or(line).to_owned());
            }
        }
    }
    let text = lines.join("\n");
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}
