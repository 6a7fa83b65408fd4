//! Compile-time behaviour of `#[tool]`: what it accepts, and what it refuses and how it says so.
//! One `TestCases` so that both sets share one build of the fixtures' dependencies.

#[test]
fn ui() {
    // The fixtures build in trybuild's own project, which the workspace profile does not reach:
    // without this their dependencies carry full debug info, 1.8 GB of a 3.5 GB test build.
    // SAFETY: the only test in this binary, so no other thread reads the environment meanwhile.
    unsafe { std::env::set_var("CARGO_PROFILE_DEV_DEBUG", "false") };
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/ui-pass/*.rs");
}
