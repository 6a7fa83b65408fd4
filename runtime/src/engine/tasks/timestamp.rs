//! ISO-8601 timestamps (`2026-07-28T12:34:56.789Z`) for `createdAt` and `lastUpdatedAt`.

use std::time::{SystemTime, UNIX_EPOCH};

/// The UTC time `at`, to the millisecond.
pub(super) fn iso8601(at: SystemTime) -> String {
    let since = at.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_from_days(days as i64);
    let (h, m, s) = (rest / 3_600, rest % 3_600 / 60, rest % 60);
    format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{:03}Z", since.subsec_millis())
}

/// Year, month, day of a count of days since 1970-01-01 (H. Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn formats_known_instants() {
        assert_eq!(iso8601(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        // 2000-02-29 (a leap day of a century leap year) 12:34:56.789
        let at = UNIX_EPOCH + Duration::from_millis(951_827_696_789);
        assert_eq!(iso8601(at), "2000-02-29T12:34:56.789Z");
        let at = UNIX_EPOCH + Duration::from_secs(1_785_196_800);
        assert_eq!(iso8601(at), "2026-07-28T00:00:00.000Z");
    }
}
