//! Whatever parses unparses to text that parses back to the same tree, in
//! the one-line and pretty forms.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(expr) = classad::syntax::parse_expression(text) else { return };
    for printed in [classad::syntax::unparse(&expr), classad::syntax::unparse_pretty(&expr)] {
        let again = classad::syntax::parse_expression(&printed).expect("unparse output parses");
        assert_eq!(classad::syntax::unparse(&again), classad::syntax::unparse(&expr));
    }
});
