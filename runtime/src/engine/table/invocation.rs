//! A call of a tool as the engine awaits it: the tool's own future, boxed once where the tool
//! made it, polled directly, not moved into a future of the engine's that wraps it again.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use super::Ended;
use crate::api::error::Error;
use crate::api::output::{Output, Rendered};
use crate::api::tool::BoxFuture;

/// A running call of a tool; it ends as an [`Ended`].
pub(crate) enum Invocation<'a> {
    /// Ended before the tool ran (its arguments refused); taken when polled.
    Ended(Option<Ended>),
    /// The tool's future on arguments read from text.
    Started(BoxFuture<'static, Result<Rendered, Error>>),
    /// The tool's future on arguments given as a value.
    Called(BoxFuture<'static, Result<Output, Error>>),
    /// The call within its limits, or through the server's layers.
    Boxed(BoxFuture<'a, Ended>),
}

impl Future for Invocation<'_> {
    type Output = Ended;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Ended> {
        match self.get_mut() {
            Invocation::Ended(ended) => Poll::Ready(ended.take().expect("an invocation polled after it ended")),
            Invocation::Started(call) => call.as_mut().poll(cx).map(Ended::from),
            Invocation::Called(call) => call.as_mut().poll(cx).map(|result| Ended::from(result.map(Rendered::Output))),
            Invocation::Boxed(call) => call.as_mut().poll(cx),
        }
    }
}
