//! Types of the hub's HTTP API that the bridge and the reference hub share.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How a draft run reaches capabilities.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    /// Replays the draft's recorded answers; calls nothing.
    #[default]
    Replay,
    /// Calls the real capabilities.
    Live,
    /// Calls the real capabilities and returns their answers as recordings.
    Record,
}

impl Transport {
    pub fn name(self) -> &'static str {
        match self {
            Transport::Replay => "replay",
            Transport::Live => "live",
            Transport::Record => "record",
        }
    }
}
