//! The tools whose handlers forward: each call fills its route, sends it, and maps the answer.
//! A 2xx JSON body is the result; a 4xx or 5xx JSON body is a tool failure with that body
//! unchanged, its kind following the status; anything else is a [`RemoteFailure`]. A
//! [`Hook`] sees the arguments before and the answer after.

use std::sync::Arc;

use serde_json::{Map, Value};
use tooltable::Error;
use tooltable::tool::{DynamicTool, Output};

use super::client::{Answer, Client};
use super::failure::{Reason, RemoteFailure};
use super::hook::{Hook, Outgoing};
use super::openapi::Forwarded;
use super::request::RequestTemplate;

/// The tool of one remote operation.
pub(super) fn tool<S: Send + Sync + 'static>(
    client: &Arc<Client>,
    forwarded: &Forwarded,
    hook: Option<&Arc<dyn Hook>>,
) -> DynamicTool<S> {
    let (client, template) = (Arc::clone(client), Arc::new(forwarded.template.clone()));
    let (hook, name) = (hook.cloned(), forwarded.descriptor.name.clone());
    DynamicTool::new(forwarded.descriptor.clone(), move |_cx, args| {
        let (client, template, hook, name) = (Arc::clone(&client), Arc::clone(&template), hook.clone(), name.clone());
        async move {
            let Some(hook) = hook else { return call(&client, &template, args, &[]).await };
            let Outgoing { args, headers } = hook.outgoing(&name, args)?;
            hook.incoming(&name, call(&client, &template, args, &headers).await)
        }
    })
}

async fn call(
    client: &Client,
    template: &RequestTemplate,
    args: Value,
    headers: &[(hyper::header::HeaderName, hyper::header::HeaderValue)],
) -> Result<Output, Error> {
    let args = match args {
        Value::Object(args) => args,
        _ => Map::new(),
    };
    let (target, body) = template.fill(&args);
    let answer = client.send_with(&template.method, &target, body.as_ref(), headers).await.map_err(Error::from)?;
    outcome(&client.base.url(&target), answer)
}

/// What an answer means to the caller.
fn outcome(url: &str, answer: Answer) -> Result<Output, Error> {
    let success = (200..300).contains(&answer.status);
    if success && answer.status == 204 {
        return Ok(Output::Json(Value::Null));
    }
    let mut value: Value = serde_json::from_slice(&answer.body).map_err(|e| {
        let detail = format_args!("status {}, {} bytes ({e})", answer.status, answer.body.len());
        Error::from(RemoteFailure::new(url, Reason::NotJson, Some(answer.status), detail))
    })?;
    tooltable::transport::numbers::normalize(&mut value);
    if answer.status == 401 {
        let detail = value.get("error").and_then(Value::as_str).unwrap_or("no reason given");
        return Err(RemoteFailure::new(url, Reason::Unauthorized, Some(401), detail).into());
    }
    match success {
        true => Ok(Output::Json(value)),
        false => Err(Error { kind: tooltable::ErrorKind::from_http_status(answer.status), body: value }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::body::Bytes;
    use serde_json::json;
    use tooltable::ErrorKind;

    fn answer(status: u16, body: &str) -> Answer {
        Answer { status, headers: Default::default(), body: Bytes::from(body.to_owned()) }
    }

    #[test]
    fn answers_map_to_results_and_failures() {
        let url = "http://127.0.0.1:1/x";
        assert_eq!(outcome(url, answer(200, r#"{"a":30.0}"#)), Ok(Output::Json(json!({ "a": 30 }))));
        assert_eq!(outcome(url, answer(204, "")), Ok(Output::Json(Value::Null)));
        let violations = r#"{"error":"Schema violation","violations":[{"path":"/a"}]}"#;
        assert_eq!(
            outcome(url, answer(422, violations)),
            Err(Error { kind: ErrorKind::InvalidInput, body: serde_json::from_str(violations).unwrap() })
        );
        let html = outcome(url, answer(500, "<html>oops</html>")).unwrap_err();
        assert_eq!(html.kind, ErrorKind::Internal);
        assert_eq!(html.body["reason"], "not_json");
        assert_eq!(html.body["status"], 500);
        assert!(
            html.body["error"]
                .as_str()
                .unwrap()
                .starts_with("http://127.0.0.1:1/x answered with a body that is not JSON: status 500, 17 bytes")
        );
        assert_eq!(outcome(url, answer(200, "")).unwrap_err().body["reason"], "not_json", "an empty 200 is no result");
        let refused = outcome(url, answer(401, r#"{"error":"Missing or invalid API key"}"#)).unwrap_err();
        assert_eq!(refused.body["reason"], "unauthorized");
        assert_eq!(
            refused.body["error"],
            "http://127.0.0.1:1/x refused the request's credentials (401): Missing or invalid API key"
        );
    }
}
