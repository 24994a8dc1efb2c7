//! Any file of ads, in any of the three forms: the streaming readers never
//! panic, and an error in one ad never stops the ads after it from being
//! read.
#![no_main]
use classad::syntax::{AdReader, Format, Parser};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let parser = Parser::new(Default::default());
    for format in [Format::Old, Format::New, Format::Json] {
        for ad in AdReader::new(data, format, &parser).take(10_000) {
            if let Ok(ad) = ad {
                let _ = classad::syntax::unparse_ad(&ad);
            }
        }
    }
});
