//! The one error of the HTTP transport's settings.

/// Why a setting of the HTTP transport was refused when the server was set up: an API key, a
/// rate limit, a URL of its authorization. The message names the setting, the value (never a
/// secret's) and the reason.
///
/// ```
/// use tooltable_transports::http::{ApiKey, RateLimit};
///
/// let refused = ApiKey::new("two words").unwrap_err();
/// assert_eq!(refused.setting(), "API key");
/// assert_eq!(refused.to_string(), "the API key must be visible ASCII characters only (no spaces)");
/// let refused = "ten".parse::<RateLimit>().unwrap_err();
/// assert_eq!(refused.to_string(), r#"the rate limit "ten" is not N/s, N a whole number of requests a second from 1 up"#);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidSetting {
    setting: &'static str,
    /// The value as given; `None` for a secret.
    value: Option<String>,
    reason: &'static str,
}

impl InvalidSetting {
    /// `setting`'s `value` refused for `reason`.
    pub(crate) fn new(setting: &'static str, value: &str, reason: &'static str) -> InvalidSetting {
        InvalidSetting { setting, value: Some(value.to_owned()), reason }
    }

    /// A secret `setting` refused for `reason`: its value is never quoted.
    pub(crate) fn secret(setting: &'static str, reason: &'static str) -> InvalidSetting {
        InvalidSetting { setting, value: None, reason }
    }

    /// Which setting was refused, e.g. `API key`, `rate limit`, `issuer`.
    pub fn setting(&self) -> &'static str {
        self.setting
    }
}

impl std::fmt::Display for InvalidSetting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.value {
            Some(value) => write!(f, "the {} {value:?} {}", self.setting, self.reason),
            None => write!(f, "the {} {}", self.setting, self.reason),
        }
    }
}

impl std::error::Error for InvalidSetting {}
