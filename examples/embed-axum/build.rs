fn main() {
    test_support::probe(&[&test_support::PYTHON_MCP]);
}
