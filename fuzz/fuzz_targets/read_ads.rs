//! Any file of ads, in any of the three forms: the streaming readers never
//! panic, and an error in one ad never stops the ads after it from being
//! read. Reading for matching (the line compiler, in small parts) gives
//! the very ads and errors that parsing every ad gives.
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
    let lines = classad_matchmaker::read_ad_text_in_parts(data, "fuzz", Some(64));
    let parsed = classad_matchmaker::read_ad_text_by_parser(data, "fuzz");
    assert_eq!(lines.errors, parsed.errors);
    let positions = |file: &classad_matchmaker::AdFile| -> Vec<usize> {
        file.ads.iter().map(|(n, _)| *n).collect()
    };
    assert_eq!(positions(&lines), positions(&parsed));
});
