//! Any text: parsing as an expression, an ad and an old-syntax line never
//! panics, and every error has a position inside the text.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let parser = classad::syntax::Parser::new(Default::default());
    for result in [
        parser.parse_expression(text).map(|_| ()),
        parser.parse_ad(text).map(|_| ()),
        parser.parse_old_line(text).map(|_| ()),
    ] {
        if let Err(error) = result {
            assert!(error.span.start as usize <= text.len());
            let _ = error.render(text, "fuzz");
        }
    }
});
