//! An HTTP/1.1 client for one remote: one connection per request, the whole exchange (connect,
//! send, read the body) under one deadline, the body read up to a bound. Plain `http://` only:
//! the transports carry no TLS stack, so an HTTPS API is reached through a local proxy.

use std::time::Duration;

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Bytes;
use std::future::Future;

use hyper::HeaderMap;
use hyper::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HOST, HeaderName, HeaderValue};
use hyper::{Method, Request, Uri};
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::net::TcpStream;

use super::failure::{ForwardError, Reason, RemoteFailure};

/// Where the remote is: `http://host[:port]`, and a path prefix every route goes under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BaseUrl {
    /// `host:port`, as the `Host` header and the connection use it.
    authority: String,
    /// The prefix without a trailing slash (`""` or `/api`).
    prefix: String,
}

impl BaseUrl {
    pub(crate) fn parse(url: &str) -> Result<BaseUrl, ForwardError> {
        let invalid = |reason: &str| ForwardError::InvalidUrl { url: url.to_owned(), reason: reason.to_owned() };
        let uri: Uri = url.parse().map_err(|e| invalid(&format!("{e}")))?;
        match uri.scheme_str() {
            Some("http") => {}
            Some("https") => return Err(invalid("https is not supported (no TLS); reach it through a local proxy")),
            _ => return Err(invalid("it must start with http://")),
        }
        let authority = uri.authority().ok_or_else(|| invalid("it names no host"))?;
        if authority.as_str().contains('@') {
            return Err(invalid("credentials in the URL are refused; give a bearer token in the options"));
        }
        if uri.query().is_some() {
            return Err(invalid("a base URL has no query string"));
        }
        let port = authority.port_u16().unwrap_or(80);
        Ok(BaseUrl {
            authority: format!("{}:{port}", authority.host()),
            prefix: uri.path().trim_end_matches('/').to_owned(),
        })
    }

    /// The full URL of a path and query under the prefix, as errors name it.
    pub(crate) fn url(&self, path_and_query: &str) -> String {
        format!("http://{}{}{path_and_query}", self.authority, self.prefix)
    }
}

/// The bearer token: sent in the `Authorization` header, never printed.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Token(String);

impl Token {
    pub(crate) fn new(token: impl Into<String>) -> Token {
        Token(token.into())
    }

    /// The `Authorization` header value, marked sensitive (printed as such, kept out of HPACK).
    pub(crate) fn header(&self) -> Result<HeaderValue, ForwardError> {
        let mut value = HeaderValue::try_from(format!("Bearer {}", self.0)).map_err(|_| ForwardError::InvalidToken)?;
        value.set_sensitive(true);
        Ok(value)
    }
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(<redacted>)")
    }
}

/// An HTTP/1.1 client of one remote, the one its forwarded tools call it with: one connection per
/// request, the whole exchange under the deadline of [`Options::timeout`](super::Options::timeout),
/// the body read up to [`Options::max_response_bytes`](super::Options::max_response_bytes), the
/// bearer token sent with every request. A server that forwards to a remote uses it for requests
/// of its own to the same remote. Plain `http://` only (no TLS stack): reach an HTTPS API through
/// a local proxy.
///
/// ```
/// use tooltable_transports::forward::{ForwardError, Options, Client};
///
/// let client = Client::new("http://127.0.0.1:8080/api/", &Options::default())?;
/// assert_eq!(client.url("/models?page=2"), "http://127.0.0.1:8080/api/models?page=2");
/// let https = Client::new("https://example.com", &Options::default());
/// assert!(matches!(https, Err(ForwardError::InvalidUrl { .. })));
/// # Ok::<(), ForwardError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Client {
    pub(crate) base: BaseUrl,
    pub(crate) timeout: Duration,
    pub(crate) max_response_bytes: usize,
    pub(crate) authorization: Option<HeaderValue>,
}

/// An answer of the remote whose whole body was read, whatever its status.
#[derive(Debug)]
pub struct Answer {
    /// The HTTP status.
    pub status: u16,
    /// The response headers.
    pub headers: HeaderMap,
    /// The whole body, as sent.
    pub body: Bytes,
}

/// Headers a request carries besides the client's own (`Accept` among them replaces its default).
pub(crate) type Extra<'a> = &'a [(HeaderName, HeaderValue)];

/// An answer whose body is still arriving (an event stream), with the connection that carries it.
#[derive(Debug)]
pub(crate) struct Streaming {
    pub(crate) status: u16,
    pub(crate) headers: HeaderMap,
    pub(crate) body: hyper::body::Incoming,
    pub(crate) _driver: Driver,
}

/// A spawned connection driver, stopped when the exchange is over or abandoned at the deadline.
#[derive(Debug)]
pub(crate) struct Driver(tokio::task::JoinHandle<()>);

impl Drop for Driver {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl Client {
    /// The client of the remote at `base_url` (`http://host[:port][/prefix]`), reached as
    /// `options` say (the deadline, the answer's bound, the bearer token).
    pub fn new(base_url: &str, options: &super::Options) -> Result<Client, ForwardError> {
        Ok(Client {
            base: BaseUrl::parse(base_url)?,
            timeout: options.timeout,
            max_response_bytes: options.max_response_bytes,
            authorization: options.token.as_ref().map(Token::header).transpose()?,
        })
    }

    /// The full URL of a path and query on the remote.
    pub fn url(&self, path_and_query: &str) -> String {
        self.base.url(path_and_query)
    }

    /// Sends one request and reads the whole answer: a failure names the URL, never the token.
    pub async fn send(
        &self,
        method: &Method,
        path_and_query: &str,
        body: Option<&Value>,
    ) -> Result<Answer, RemoteFailure> {
        self.send_with(method, path_and_query, body, &[]).await
    }

    /// [`send`](Client::send), with headers of the caller's (an `Accept` among them replaces
    /// the default `application/json`).
    pub async fn send_with(
        &self,
        method: &Method,
        path_and_query: &str,
        body: Option<&Value>,
        extra: &[(HeaderName, HeaderValue)],
    ) -> Result<Answer, RemoteFailure> {
        let url = self.base.url(path_and_query);
        let request = self.request(method, path_and_query, body, extra);
        self.exchange(request, &url).await
    }

    /// POSTs a form (`application/x-www-form-urlencoded`) and reads the whole answer.
    pub(crate) async fn post_form(
        &self,
        path_and_query: &str,
        form: String,
        extra: Extra<'_>,
    ) -> Result<Answer, RemoteFailure> {
        let url = self.base.url(path_and_query);
        let request = self.request(&Method::POST, path_and_query, None, extra).map(|mut request| {
            let form_type = HeaderValue::from_static("application/x-www-form-urlencoded");
            request.headers_mut().insert(CONTENT_TYPE, form_type);
            *request.body_mut() = Full::new(Bytes::from(form));
            request
        });
        self.exchange(request, &url).await
    }

    /// Sends `request` and reads the whole answer, under the deadline.
    async fn exchange(
        &self,
        request: Result<Request<Full<Bytes>>, hyper::http::Error>,
        url: &str,
    ) -> Result<Answer, RemoteFailure> {
        let exchange = async {
            let (status, headers, incoming, _driver) = self.head(request, url).await?;
            self.read(status, headers, incoming, url).await
        };
        self.deadline(url, exchange).await
    }

    /// Sends a request and returns once the answer's head has come (under the deadline); the body
    /// is the caller's to read, for as long as it lasts.
    pub(crate) async fn open(
        &self,
        method: &Method,
        path_and_query: &str,
        body: Option<&Value>,
        extra: Extra<'_>,
    ) -> Result<Streaming, RemoteFailure> {
        let url = self.base.url(path_and_query);
        let head = self.head(self.request(method, path_and_query, body, extra), &url);
        let (status, headers, body, driver) = self.deadline(&url, head).await?;
        Ok(Streaming { status, headers, body, _driver: driver })
    }

    async fn deadline<T>(
        &self,
        url: &str,
        exchange: impl Future<Output = Result<T, RemoteFailure>>,
    ) -> Result<T, RemoteFailure> {
        match tokio::time::timeout(self.timeout, exchange).await {
            Ok(answer) => answer,
            Err(_) => Err(RemoteFailure::new(url, Reason::Timeout, None, format_args!("{:?}", self.timeout))),
        }
    }

    async fn head(
        &self,
        request: Result<Request<Full<Bytes>>, hyper::http::Error>,
        url: &str,
    ) -> Result<(u16, HeaderMap, hyper::body::Incoming, Driver), RemoteFailure> {
        let unreachable = |e: &dyn std::fmt::Display| RemoteFailure::new(url, Reason::Unreachable, None, e);
        let request = request.map_err(|e| unreachable(&e))?;
        let stream = TcpStream::connect(&self.base.authority).await.map_err(|e| unreachable(&e))?;
        let (mut sender, connection) =
            hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.map_err(|e| unreachable(&e))?;
        let driver = Driver(tokio::spawn(async move {
            let _ = connection.await;
        }));
        let response = sender.send_request(request).await.map_err(|e| unreachable(&e))?;
        let status = response.status().as_u16();
        let (parts, incoming) = response.into_parts();
        Ok((status, parts.headers, incoming, driver))
    }

    /// Reads a whole body, up to the bound.
    pub(crate) async fn read(
        &self,
        status: u16,
        headers: HeaderMap,
        incoming: hyper::body::Incoming,
        url: &str,
    ) -> Result<Answer, RemoteFailure> {
        match Limited::new(incoming, self.max_response_bytes).collect().await {
            Ok(collected) => Ok(Answer { status, headers, body: collected.to_bytes() }),
            Err(e) if e.is::<http_body_util::LengthLimitError>() => Err(RemoteFailure::new(
                url,
                Reason::TooLarge,
                Some(status),
                format_args!("more than {} bytes", self.max_response_bytes),
            )),
            Err(e) => Err(RemoteFailure::new(url, Reason::Unreachable, None, e)),
        }
    }

    fn request(
        &self,
        method: &Method,
        path_and_query: &str,
        body: Option<&Value>,
        extra: Extra<'_>,
    ) -> Result<Request<Full<Bytes>>, hyper::http::Error> {
        let mut request = Request::builder()
            .method(method)
            .uri(format!("{}{path_and_query}", self.base.prefix))
            .header(HOST, &self.base.authority);
        if !extra.iter().any(|(name, _)| name == ACCEPT) {
            request = request.header(ACCEPT, "application/json");
        }
        for (name, value) in extra {
            request = request.header(name, value);
        }
        if let Some(authorization) = &self.authorization {
            request = request.header(AUTHORIZATION, authorization);
        }
        let bytes = match body {
            Some(body) => {
                request = request.header(CONTENT_TYPE, "application/json");
                Bytes::from(body.to_string())
            }
            None => Bytes::new(),
        };
        request.body(Full::new(bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_base_url_is_plain_http_with_an_optional_prefix() {
        let base = BaseUrl::parse("http://127.0.0.1:8080/api/").unwrap();
        assert_eq!(base.url("/models/a?x=1"), "http://127.0.0.1:8080/api/models/a?x=1");
        assert_eq!(BaseUrl::parse("http://localhost").unwrap().url("/x"), "http://localhost:80/x");
        for bad in ["https://example.com", "ftp://h", "127.0.0.1:80", "http://u:p@h/", "http://h/?q=1", ""] {
            assert!(matches!(BaseUrl::parse(bad), Err(ForwardError::InvalidUrl { .. })), "{bad}");
        }
    }

    #[test]
    fn the_token_is_not_printed() {
        let client = Client {
            base: BaseUrl::parse("http://h").unwrap(),
            timeout: Duration::from_secs(1),
            max_response_bytes: 1,
            authorization: Some(Token::new("s3cret").header().unwrap()),
        };
        assert!(!format!("{client:?} {:?}", Token::new("s3cret")).contains("s3cret"));
        assert_eq!(Token::new("line\nbreak").header(), Err(ForwardError::InvalidToken));
    }
}
