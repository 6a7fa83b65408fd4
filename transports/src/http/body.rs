//! Request bodies read under a limit, and the response bodies the transport sends: whole JSON, or
//! an open event stream fed from a channel.

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Body, Bytes, Frame};
use hyper::header::{CONNECTION, CONTENT_TYPE, HeaderValue, RETRY_AFTER};
use hyper::{HeaderMap, Response, StatusCode};
use serde_json::Value;
use tokio::sync::{Semaphore, SemaphorePermit};

use super::event_channel::EventReceiver;

/// The body of every response the transport sends: whole bytes, an event stream, or what a
/// [nested](super::Http::nest) handler answered.
#[derive(Debug)]
// Boxed: a response stays small enough to be the error of a `Result` (a gate's refusal).
pub struct ResponseBody(Box<Kind>);

#[derive(Debug)]
enum Kind {
    Full(Full<Bytes>),
    Stream {
        events: EventReceiver,
        keepalive: tokio::time::Interval,
        /// What must live as long as the stream: the session of a stateless request, whose calls
        /// end (are cancelled) when the client closes the stream.
        #[expect(dead_code, reason = "held for its drop: the stream keeps what it owns alive")]
        owner: Option<StreamOwner>,
    },
    Nested(http_body_util::combinators::BoxBody<Bytes, Infallible>),
}

impl ResponseBody {
    /// A nested handler's body.
    pub(crate) fn nested(body: http_body_util::combinators::BoxBody<Bytes, Infallible>) -> Self {
        ResponseBody(Box::new(Kind::Nested(body)))
    }
}

/// What an event stream keeps alive (see [`owned_event_stream`]).
#[derive(Clone)]
pub(crate) struct StreamOwner(#[expect(dead_code, reason = "held for its drop")] pub(crate) Arc<dyn Send + Sync>);

impl std::fmt::Debug for StreamOwner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StreamOwner(..)")
    }
}

/// The comment an idle event stream sends now and then: it keeps proxies and clients from
/// timing the stream out, and finds clients that are gone.
const KEEPALIVE: &[u8] = b": keepalive\n\n";

impl Body for ResponseBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match &mut *self.get_mut().0 {
            Kind::Full(full) => Pin::new(full).poll_frame(cx),
            Kind::Stream { events, keepalive, .. } => match events.poll_recv(cx) {
                Poll::Ready(chunk) => {
                    keepalive.reset();
                    Poll::Ready(chunk.map(|b| Ok(Frame::data(b))))
                }
                Poll::Pending => keepalive.poll_tick(cx).map(|_| Some(Ok(Frame::data(Bytes::from_static(KEEPALIVE))))),
            },
            Kind::Nested(body) => Pin::new(body).poll_frame(cx),
        }
    }

    fn is_end_stream(&self) -> bool {
        match &*self.0 {
            Kind::Full(full) => full.is_end_stream(),
            Kind::Stream { .. } => false,
            Kind::Nested(body) => body.is_end_stream(),
        }
    }

    /// An exact size for whole bodies, so hyper writes `content-length` rather than chunks.
    fn size_hint(&self) -> hyper::body::SizeHint {
        match &*self.0 {
            Kind::Full(full) => full.size_hint(),
            Kind::Stream { .. } => hyper::body::SizeHint::default(),
            Kind::Nested(body) => body.size_hint(),
        }
    }
}

/// A response of the transport's.
pub type HttpResponse = Response<ResponseBody>;

/// A request body the transport reads: hyper's own (counted by the connection cap while it is
/// still arriving) when it serves alone, a host application's when it is mounted there.
pub trait RequestBody: Body<Data = Bytes, Error: Into<BoxError>> + Send + 'static {}

impl<B: Body<Data = Bytes, Error: Into<BoxError>> + Send + 'static> RequestBody for B {}

/// What a request body's error becomes.
pub(crate) type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A response with a whole body.
pub(crate) fn bytes(status: StatusCode, content_type: &'static str, body: impl Into<Bytes>) -> HttpResponse {
    let mut response = Response::new(ResponseBody(Box::new(Kind::Full(Full::new(body.into())))));
    *response.status_mut() = status;
    response.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

/// A JSON response.
pub(crate) fn json(status: StatusCode, body: &Value) -> HttpResponse {
    bytes(status, "application/json", serde_json::to_vec(body).unwrap_or_default())
}

/// A JSON response from text that already is JSON.
pub(crate) fn json_text(status: StatusCode, text: String) -> HttpResponse {
    bytes(status, "application/json", text)
}

/// [`json_text`] with its headers in `headers`, emptied first: the request's own map, taken for
/// its response. hyper parses a connection's next request into the map of its last response, so
/// the map that held this request's headers holds the next one's without growing, and the
/// response allocates none of its own.
pub(crate) fn json_text_in(mut headers: HeaderMap, status: StatusCode, text: String) -> HttpResponse {
    headers.clear();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    let mut response = Response::new(ResponseBody(Box::new(Kind::Full(Full::new(text.into())))));
    *response.status_mut() = status;
    *response.headers_mut() = headers;
    response
}

/// `{"error": message}` with a status.
pub fn error(status: StatusCode, message: impl Into<String>) -> HttpResponse {
    json(status, &serde_json::json!({ "error": message.into() }))
}

/// A response with no body.
pub(crate) fn empty(status: StatusCode) -> HttpResponse {
    let mut response = Response::new(ResponseBody(Box::new(Kind::Full(Full::new(Bytes::new())))));
    *response.status_mut() = status;
    response
}

/// An event stream fed by `events`, with a keepalive comment after each `keepalive` without an
/// event; it ends when every sender is dropped.
pub(crate) fn event_stream(events: EventReceiver, keepalive: Duration) -> HttpResponse {
    owned_event_stream(events, keepalive, None)
}

/// [`event_stream`], keeping `owner` alive until the stream ends or the client closes it.
pub(crate) fn owned_event_stream(
    events: EventReceiver,
    keepalive: Duration,
    owner: Option<StreamOwner>,
) -> HttpResponse {
    let period = keepalive.max(Duration::from_millis(1));
    let mut keepalive = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
    keepalive.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut response = Response::new(ResponseBody(Box::new(Kind::Stream { events, keepalive, owner })));
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert("cache-control", HeaderValue::from_static("no-cache"));
    response
}

/// Reads the whole body, refusing one over `limit` bytes (413) without buffering past it, or one
/// that takes longer than `timeout` to arrive (408). Either refusal closes the connection: the rest
/// of the body is never read.
pub(crate) async fn read_limited<B: RequestBody>(
    body: B,
    limit: usize,
    timeout: Duration,
) -> Result<Bytes, HttpResponse> {
    let refused = |status, message: String| {
        let mut response = error(status, message);
        response.headers_mut().insert(CONNECTION, HeaderValue::from_static("close"));
        response
    };
    let mut collect = std::pin::pin!(collect_limited(body, limit));
    // A body that came with its head (most do) is read whole at once, with no timer to set.
    let read = match std::future::poll_fn(|cx| Poll::Ready(collect.as_mut().poll(cx))).await {
        Poll::Ready(read) => Ok(read),
        Poll::Pending => tokio::time::timeout(timeout, collect).await,
    };
    match read {
        Ok(Ok(bytes)) => Ok(bytes),
        Ok(Err(Unread::TooLarge)) => {
            Err(refused(StatusCode::PAYLOAD_TOO_LARGE, format!("the body exceeds the limit of {limit} bytes")))
        }
        Ok(Err(Unread::Broken)) => Err(refused(StatusCode::BAD_REQUEST, "the body could not be read".into())),
        Err(_) => Err(refused(StatusCode::REQUEST_TIMEOUT, format!("the body did not arrive within {timeout:?}"))),
    }
}

/// Why a body was not read whole.
enum Unread {
    TooLarge,
    Broken,
}

/// The body's data, refused as soon as it grows past `limit`. A body that comes in one frame
/// (most do) is taken as it came, with nothing gathered or copied.
async fn collect_limited<B: RequestBody>(body: B, limit: usize) -> Result<Bytes, Unread> {
    let mut body = std::pin::pin!(body);
    let mut first: Option<Bytes> = None;
    let mut gathered = Vec::new();
    while let Some(frame) = body.as_mut().frame().await {
        // Trailers carry no data.
        let Ok(data) = frame.map_err(|_| Unread::Broken)?.into_data() else { continue };
        let read = first.as_ref().map_or(gathered.len(), Bytes::len);
        if data.len() > limit.saturating_sub(read) {
            return Err(Unread::TooLarge);
        }
        match first.take() {
            None if gathered.is_empty() => first = Some(data),
            earlier => {
                gathered.extend_from_slice(earlier.as_deref().unwrap_or_default());
                gathered.extend_from_slice(&data);
            }
        }
    }
    Ok(first.unwrap_or_else(|| gathered.into()))
}

/// Bodies up to this size are parsed without asking the budget: everyday messages never wait.
const SMALL_BODY: usize = 64 * 1024;

/// Bytes of request bodies being parsed at once. Parsed JSON takes many times its text in memory,
/// so large bodies take turns: one waits (up to `wait`) for others to finish, then gets a 503.
pub(crate) struct ParseBudget {
    bytes: Semaphore,
    total: usize,
    wait: Duration,
}

impl ParseBudget {
    pub(crate) fn new(total: usize, wait: Duration) -> Self {
        // `acquire_many` counts in u32.
        let total = total.clamp(1, u32::MAX as usize);
        ParseBudget { bytes: Semaphore::new(total), total, wait }
    }

    /// Reserves room to parse `len` bytes, held while the permit lives (`None` for a small body).
    pub(crate) async fn reserve(&self, len: usize) -> Result<Option<SemaphorePermit<'_>>, HttpResponse> {
        if len <= SMALL_BODY {
            return Ok(None);
        }
        let permits = u32::try_from(len.min(self.total)).unwrap_or(u32::MAX);
        match tokio::time::timeout(self.wait, self.bytes.acquire_many(permits)).await {
            Ok(Ok(permit)) => Ok(Some(permit)),
            _ => {
                let mut busy = error(
                    StatusCode::SERVICE_UNAVAILABLE,
                    format!("other large bodies are being parsed (at most {} bytes at once); retry later", self.total),
                );
                busy.headers_mut().insert(RETRY_AFTER, HeaderValue::from_static("1"));
                Err(busy)
            }
        }
    }
}

/// A body without the UTF-8 byte order mark some clients put first.
pub(crate) fn without_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn large_bodies_take_turns_and_small_ones_never_wait() {
        let budget = ParseBudget::new(100_000, Duration::from_millis(50));
        let held = budget.reserve(80_000).await.expect("room for one").expect("a large body holds a permit");
        let busy = budget.reserve(80_000).await.expect_err("no room for two");
        assert_eq!(busy.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert!(budget.reserve(SMALL_BODY).await.expect("small bodies pass").is_none());
        drop(held);
        assert!(budget.reserve(1_000_000).await.is_ok(), "a body over the whole budget takes all of it");
    }

    /// A body that comes in the given pieces, one frame each.
    struct Pieces(std::collections::VecDeque<&'static [u8]>);

    impl Body for Pieces {
        type Data = Bytes;
        type Error = Infallible;

        fn poll_frame(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
            Poll::Ready(self.0.pop_front().map(|piece| Ok(Frame::data(Bytes::from_static(piece)))))
        }
    }

    #[tokio::test]
    async fn a_body_in_pieces_is_read_whole_up_to_the_limit() {
        let pieces = || Pieces([&b"{\"a\":"[..], b"1", b"}"].into());
        let read = read_limited(pieces(), 7, Duration::from_secs(1)).await.expect("within the limit");
        assert_eq!(read, &b"{\"a\":1}"[..]);
        let refused = read_limited(pieces(), 6, Duration::from_secs(1)).await.expect_err("one byte over");
        assert_eq!(refused.status(), StatusCode::PAYLOAD_TOO_LARGE);
    }

    #[test]
    fn a_leading_byte_order_mark_is_dropped() {
        assert_eq!(without_bom(b"\xEF\xBB\xBF{}"), b"{}");
        assert_eq!(without_bom(b"{}"), b"{}");
    }
}
