//! REST: every tool with a `rest` route served at it, from the same table as MCP. Errors are
//! JSON with the status their kind maps to (the one mapping, also shown in `/openapi.json`).

pub(crate) mod args;
pub(crate) mod location;
pub(crate) mod openapi;
pub(crate) mod routes;

use hyper::header::{ALLOW, HeaderValue, LOCATION};
use hyper::{Request, StatusCode};
use tooltable::ErrorKind;
use tooltable::tool::Output;
use tooltable::transport::RequestContext;

use crate::http::HttpContext;
use crate::http::body::{self, HttpResponse, RequestBody};
use routes::Resolution;

pub(crate) async fn handle<S: Send + Sync + 'static, B: RequestBody>(
    cx: &HttpContext<S>,
    req: Request<B>,
    context: &RequestContext,
) -> HttpResponse {
    let (head, body) = req.into_parts();
    let (method, path) = (head.method.as_str(), head.uri.path());
    let (route, params) = match cx.routes.resolve(method, path) {
        Resolution::Found(route, params) => {
            // The route's template, not the path: the path holds arguments, which are never logged.
            tracing::debug!(tool = %route.tool, "{method} {}", route.rest.path);
            (route, params)
        }
        Resolution::NotFound => return body::error(StatusCode::NOT_FOUND, format!("no route for {method} {path}")),
        Resolution::WrongMethod(methods) => {
            let allow = methods.join(", ");
            let mut r = body::error(StatusCode::METHOD_NOT_ALLOWED, format!("{path} allows {allow}, not {method}"));
            if let Ok(v) = HeaderValue::from_str(&allow) {
                r.headers_mut().insert(ALLOW, v);
            }
            return r;
        }
    };
    if let Err(refusal) = crate::http::auth::scopes::authorize_tool(cx, context, &route.tool) {
        return refusal;
    }
    let bytes = match body::read_limited(body, cx.options.max_body_bytes, cx.options.body_timeout).await {
        Ok(bytes) => bytes,
        Err(response) => return response,
    };
    if cx.server.table().get(&route.tool).is_none() {
        return body::error(StatusCode::NOT_FOUND, format!("no route for {method} {path}"));
    }
    let _parsing = match cx.parsing.reserve(bytes.len()).await {
        Ok(permit) => permit,
        Err(response) => return response,
    };
    let args = match args::assemble(route, params, head.uri.query(), body::without_bom(&bytes)) {
        Ok(args) => args,
        Err(e) => return body::error(StatusCode::BAD_REQUEST, e.0),
    };
    let status = StatusCode::from_u16(route.rest.status).unwrap_or(StatusCode::OK);
    // Through the server, so that its layers and the tool's limits hold REST calls too.
    let (status, value) = match cx.server.call_tool(cx.server.cx(context), &route.tool, Some(args)).await {
        Ok(Ok(Output::Json(value))) => (status, value),
        Ok(Ok(Output::Content(content))) => (status, serde_json::json!(content)),
        Ok(Err(failure)) => {
            let status = StatusCode::from_u16(failure.kind.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            (status, failure.body)
        }
        Err(e) => return body::error(StatusCode::BAD_REQUEST, e.message),
    };
    let mut response = bounded(status, &value, cx.options.max_response_bytes);
    if response.status() == status
        && status.is_success()
        && let Some(template) = &route.rest.location
        && let Some(location) = location::location(&cx.rest_prefix, template, &value)
    {
        response.headers_mut().insert(LOCATION, location);
    }
    response
}

/// The JSON response, or a 413 error body when it would exceed `limit` bytes.
fn bounded(status: StatusCode, value: &serde_json::Value, limit: usize) -> HttpResponse {
    let text = serde_json::to_vec(value).unwrap_or_default();
    if text.len() > limit {
        let status = StatusCode::from_u16(ErrorKind::TooLarge.http_status()).unwrap_or(StatusCode::PAYLOAD_TOO_LARGE);
        return body::json(
            status,
            &serde_json::json!({
                "error": format!("the result is {} bytes, over the response limit of {limit} bytes", text.len()),
                "limit": limit,
            }),
        );
    }
    body::bytes(status, "application/json", text)
}
