fn main() {
    test_support::probe(&[&test_support::OIDC_PROVIDER]);
}
