fn main() {
    test_support::probe(&[&test_support::POSTGRES, &test_support::VALEM_EXAMPLES, &test_support::CHROMIUM]);
}
