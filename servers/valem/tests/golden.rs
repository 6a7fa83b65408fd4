//! valem's golden sessions (golden-sessions/valem), replayed over stdio and HTTP: the seed's
//! worked example, arrays by patch with the audit trail, snapshots, evolutions, blobs and the
//! state subscription (part2), every reading tool and the structured refusals (reading), the
//! authoring tools (authoring), every resource (resources), the process's bounds (limits), the
//! stateless revision; and the docs page generated from them. Browser mode's pairing
//! (golden-sessions/valem-browser) against a sandbox this test serves.

use tooltable_golden::Golden;

#[path = "support/sandbox_host.rs"]
#[allow(dead_code, reason = "the suite's host; the browser sessions need only the approving one")]
mod sandbox_host;

fn golden() -> Golden {
    Golden::new(env!("CARGO_BIN_EXE_valem"), concat!(env!("CARGO_MANIFEST_DIR"), "/../../golden-sessions/valem"))
}

tooltable_golden::golden_tests!(
    golden(),
    [worked_example, part2, stateless, reading, authoring, resources, limits, from_python_sdk]
);

/// A process started with the hidden `--audit-tamper-hook`: `verify_audit` after a stored record
/// is altered in place.
mod audit_hook {
    use tooltable_golden::Golden;

    fn golden() -> Golden {
        Golden::new(
            env!("CARGO_BIN_EXE_valem"),
            concat!(env!("CARGO_MANIFEST_DIR"), "/../../golden-sessions/valem-audit-hook"),
        )
    }

    tooltable_golden::golden_tests!(golden(), [tampered]);
}

/// Browser mode, `valem mcp --url URL --browser` (over stdio: `serve` forwards nothing), against the sandbox of a
/// host this test serves for every session of the folder, whose developer approves each pairing
/// once its agent was told to wait: `pairing`, from the not-paired error to the session's models.
mod browser {
    use std::sync::LazyLock;

    use tooltable_golden::Golden;
    use valem::sandbox::SandboxLimits;

    use crate::sandbox_host;

    /// Polls allowed every 3 s and a call's wait of 2 s (`golden.json`): the first pair_browser
    /// ends pending, the next one's poll comes after the approval.
    static HOST: LazyLock<sandbox_host::Host> = LazyLock::new(|| {
        sandbox_host::Host::approving(SandboxLimits { pairing_interval_secs: 3, ..SandboxLimits::DEFAULT })
    });

    fn golden() -> Golden {
        Golden::new(
            env!("CARGO_BIN_EXE_valem"),
            concat!(env!("CARGO_MANIFEST_DIR"), "/../../golden-sessions/valem-browser"),
        )
        .literal("URL", &HOST.url)
    }

    // Not golden_tests!: `valem tools` lists embedded mode's tools (pair_browser's descriptor is
    // the unit tests'), and these sessions name no docs page (valem's names them).
    #[test]
    fn pairing() {
        golden().in_cargo_test(env!("CARGO_PKG_NAME"), env!("CARGO_CRATE_NAME")).check("pairing");
    }

    #[test]
    fn every_session_file_has_a_test() {
        golden().check_listed(&["pairing"]);
    }
}
