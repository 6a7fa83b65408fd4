//! `logging/setLevel` (the handshake era's minimum level) and `notifications/message`.

use serde::Deserialize;
use serde_json::Value;

use super::Request;
use super::notifications::{LoggingMessage, MESSAGE};
use crate::api::lock;
use crate::api::logging::LogLevel;
use crate::engine::jsonrpc::{RequestId, RpcError};
use crate::engine::params::{self, Field};
use crate::engine::session::SessionCore;
use crate::engine::wire::Empty;

/// The params of `logging/setLevel`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct SetLevelParams {
    level: Field<String>,
}

pub(crate) fn set_level<S: Send + Sync + 'static>(mut request: Request<'_, S>) {
    let params: SetLevelParams = params::read(request.params.take());
    let result = match params.level {
        Field::Given(level) => match LogLevel::parse(&level) {
            Some(level) => {
                lock(&request.session.state).log_level = level;
                Ok(Empty {})
            }
            None => Err(RpcError::invalid_params(format!("unknown log level {level:?}"))),
        },
        _ => Err(RpcError::invalid_params("params.level (a string) is required")),
    };
    request.answer(result);
}

/// Sends a log message, its level already checked.
pub(crate) fn send<S: Send + Sync + 'static>(
    session: &SessionCore<S>,
    level: LogLevel,
    logger: Option<&str>,
    data: Value,
    during: Option<&RequestId>,
) {
    session.notify(MESSAGE, &LoggingMessage { level, logger, data }, during);
}
