//! The standalone server: a listener's connections, each served by hyper with the service.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use hyper::Request;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

use super::service::HttpService;
use super::{connections, slots};

/// Serves `service` on `listener` until `shutdown` resolves, then lets in-flight requests finish
/// within `grace`.
pub(super) async fn serve<S: Send + Sync + 'static>(
    service: HttpService<S>,
    listener: TcpListener,
    grace: Duration,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let options = service.options().clone();
    let mut tasks = tokio::task::JoinSet::new();
    let cap = connections::effective_cap(options.max_connections);
    let slots = slots::Slots::new(cap);
    let refusals = Arc::new(connections::Refusals::new(cap));
    let mut backoff = connections::Backoff::default();
    let mut http = http1::Builder::new();
    // A client that shuts its write side down still gets the answers to what it sent. The header
    // timeout is kept by one sweep over the connections, not by a hyper timer per request (set
    // and cleared on every request, a timer registration each time).
    http.header_read_timeout(None).half_close(true);
    let sweep = tokio::spawn(close_late_heads(Arc::downgrade(&slots), options.header_timeout)).abort_handle();
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = connections::accept(&listener, &mut backoff) => accepted,
            () = &mut shutdown => break,
        };
        while tasks.try_join_next().is_some() {}
        let (service, slots, refusals) = (service.clone(), Arc::clone(&slots), Arc::clone(&refusals));
        let (http, stall_timeout) = (http.clone(), options.stall_timeout);
        tasks.spawn(async move {
            let Some(slot) = slots.claim().await else {
                return refusals.refuse(stream);
            };
            // Answers are small and written in one go; Nagle's delay would only add latency.
            let _ = stream.set_nodelay(true);
            // A stream that watches for its client's hang-up (a listen) ends when the client goes.
            let (stream, hangup) = connections::watched(stream);
            let io = TokioIo::new(connections::StallGuard::new(stream, stall_timeout));
            let client = peer.ip();
            let connection = Arc::clone(&slot.connection);
            // The connection's own handle: each request counts on it, not on the one every
            // connection shares (a count written from every core).
            let service = Arc::new(service.for_connection());
            let hyper_service = service_fn(move |req: Request<hyper::body::Incoming>| {
                let (service, hangup) = (Arc::clone(&service), hangup.clone());
                let busy = connection.begin();
                let req = req.map(|body| connection.receive(body));
                async move {
                    let response = service.answer(req, client, Some(hangup)).await;
                    Ok::<_, std::convert::Infallible>(response.map(|body| busy.carrying(body)))
                }
            });
            let mut conn = std::pin::pin!(http.serve_connection(io, hyper_service));
            let ended = match slot.connection.until_closed(conn.as_mut()).await {
                Ok(ended) => ended,
                Err(slots::Closed::Shutdown) => {
                    conn.as_mut().graceful_shutdown();
                    conn.await
                }
                Err(slots::Closed::ForRoom) => return tracing::debug!("closed an idle connection to make room"),
                Err(slots::Closed::LateHead) => {
                    return tracing::debug!("closed a connection whose request head came late");
                }
            };
            if let Err(e) = ended {
                tracing::debug!("connection ended: {e}");
            }
        });
    }
    drop(listener);
    sweep.abort();
    // Standalone event streams never end by themselves: close them; requests in flight finish,
    // then their connections close.
    service.shutdown();
    slots.shut_down();
    let finished = async { while tasks.join_next().await.is_some() {} };
    if tokio::time::timeout(grace, finished).await.is_err() {
        tracing::warn!("shutdown grace period over; dropping the connections still open");
        tasks.abort_all();
    }
    service.end_sessions();
    Ok(())
}

/// Closes, now and then, the connections that waited `limit` or longer for a request's head; a
/// connection is closed at most a quarter of `limit` (and at most a second) past it.
async fn close_late_heads(slots: std::sync::Weak<slots::Slots>, limit: Duration) {
    let period = (limit / 4).clamp(Duration::from_millis(10), Duration::from_secs(1));
    let mut ticks = tokio::time::interval(period);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        let Some(slots) = slots.upgrade() else { return };
        slots.close_late_heads(limit);
    }
}
