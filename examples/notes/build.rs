fn main() {
    test_support::probe(&[&test_support::OIDC_PROVIDER, &test_support::TYPESCRIPT_MCP, &test_support::PYTHON_MCP]);
}
