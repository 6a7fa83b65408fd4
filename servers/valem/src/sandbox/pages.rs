//! The pages: the verification page (`GET /sandbox/verify`), the session's list of models (`GET
//! /sandbox/`) and a model's page (`GET /sandbox/models/{id}`), one layout around each, and
//! their stylesheet and script (`GET /sandbox/assets/...`). All of it is in the binary; nothing
//! is built or fetched from elsewhere. Every page carries the CSRF token its script sends back.

use http::{HeaderMap, StatusCode};

use super::reply::{self, Response};
use super::{PATH, Sandbox, csrf};
use crate::namespace;
use crate::tools::models::LIST_PAGE;

const LAYOUT: &str = include_str!("assets/layout.html");
const VERIFY: &str = include_str!("assets/verify.html");
const MODEL: &str = include_str!("assets/model.html");
const STYLE: &str = include_str!("assets/sandbox.css");
const SCRIPT: &str = include_str!("assets/sandbox.js");

/// `GET /sandbox/verify`: the code to confirm (the script fills it in from the address's
/// `#c=` fragment, then takes the fragment out of the address bar), Approve and Deny.
pub fn verify(headers: &HeaderMap) -> Response {
    render(headers, StatusCode::OK, "verify", "Pair with your agent", VERIFY.to_owned())
}

/// `GET /sandbox/`: the session's models, as links (a reload shows new ones).
pub async fn session(sandbox: &Sandbox, headers: &HeaderMap) -> Response {
    let Some(access) = sandbox.access(headers) else { return not_paired(headers) };
    let prefix = namespace::prefix(&access.namespace_id);
    let ids = match sandbox.server.state().ids_under(&prefix, None, LIST_PAGE).await {
        Ok((ids, _)) => ids,
        Err(e) => {
            let body = format!("<p class=\"error\">The models cannot be listed: {}</p>", escape(&e.message()));
            return render(headers, StatusCode::INTERNAL_SERVER_ERROR, "session", "Your models", body);
        }
    };
    let items: String = ids
        .iter()
        .filter_map(|id| id.strip_prefix(&prefix))
        .map(|id| {
            let href = format!("{PATH}/models/{}", percent_encoding::utf8_percent_encode(id, SEGMENT));
            format!("<li><a href=\"{}\" data-model-id=\"{id}\">{id}</a></li>", escape(&href), id = escape(id))
        })
        .collect();
    let list = match items.is_empty() {
        true => "<p class=\"empty\">No models yet: ask your agent to create one.</p>".to_owned(),
        false => format!("<ul class=\"models\">{items}</ul>"),
    };
    let body = format!("<h1>Your models</h1><p class=\"namespace\">Session {}</p>{list}", escape(&access.namespace_id));
    render(headers, StatusCode::OK, "session", "Your models", body)
}

/// `GET /sandbox/models/{id}`: the page the script renders the model's view into.
pub fn model(sandbox: &Sandbox, headers: &HeaderMap, id: &str) -> Response {
    if sandbox.access(headers).is_none() {
        return not_paired(headers);
    }
    render(headers, StatusCode::OK, "model", id, MODEL.replace("{{model}}", &escape(id)))
}

/// `GET /sandbox/assets/{name}`.
pub fn asset(name: &str) -> Response {
    match name {
        "sandbox.css" => reply::bytes(StatusCode::OK, "text/css; charset=utf-8", STYLE),
        "sandbox.js" => reply::bytes(StatusCode::OK, "text/javascript; charset=utf-8", SCRIPT),
        _ => reply::error(StatusCode::NOT_FOUND, "not_found", "no such asset"),
    }
}

fn not_paired(headers: &HeaderMap) -> Response {
    let body = "<h1>Not paired</h1><p>This browser holds no live sandbox session. Open the link your \
        agent gives you and approve it.</p>";
    render(headers, StatusCode::UNAUTHORIZED, "not-paired", "Not paired", body.to_owned())
}

/// A page in the layout, with the browser's CSRF token (set as a cookie when it is new).
fn render(headers: &HeaderMap, status: StatusCode, page: &str, title: &str, body: String) -> Response {
    let (token, new) = csrf::token(headers);
    let html = LAYOUT
        .replace("{{page}}", page)
        .replace("{{title}}", &escape(title))
        .replace("{{csrf}}", &token)
        .replace("{{path}}", PATH)
        .replace("{{body}}", &body);
    let mut response = reply::page(status, html);
    if new {
        reply::set_cookie(&mut response, csrf::COOKIE, &token);
    }
    response
}

/// Characters percent-encoded in a path segment: all but the unreserved ones.
const SEGMENT: &percent_encoding::AsciiSet =
    &percent_encoding::NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

/// Text as HTML text or an attribute value.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped() {
        assert_eq!(escape(r#"<a href="x">'&'</a>"#), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
    }

    #[test]
    fn every_asset_is_served_and_others_are_not() {
        assert_eq!(asset("sandbox.css").status(), StatusCode::OK);
        assert_eq!(asset("sandbox.js").status(), StatusCode::OK);
        assert_eq!(asset("../mod.rs").status(), StatusCode::NOT_FOUND);
    }
}
