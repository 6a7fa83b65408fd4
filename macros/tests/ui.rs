//! Compile-time behaviour of `#[operation]`: what it accepts, and what it refuses and how it says so.
//! One `TestCases` so that both sets share one build of the fixtures' dependencies.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/ui-pass/*.rs");
}
