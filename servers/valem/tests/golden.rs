//! valem's golden sessions (golden-sessions/valem), replayed over stdio and HTTP: the seed's
//! worked example, arrays by patch with the audit trail, snapshots, evolutions, blobs and the
//! state subscription (part2), every reading tool and the structured refusals (reading), the
//! authoring tools (authoring), every resource (resources), the process's bounds (limits), the
//! stateless revision; and the docs page generated from them.

use tooltable_golden::Golden;

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
