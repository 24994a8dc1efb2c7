//! The XML form on a generated pool: old → XML → old gives the same trees
//! (names, expressions; spans ignored) and the same old-syntax text, the
//! XML found by auto-detection.
//!
//! Needs `python3` and the workload generator in `../shared` (next to the
//! repository); without them the test says so on the terminal (past
//! `cargo test`'s capture) and passes.

use classad::syntax::{self, AdExpr, AdReader, Format, ParseOptions, Parser};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

fn shared_dir() -> PathBuf {
    std::env::var_os("CLASSAD_SHARED_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared"))
}

fn read_ads(bytes: &[u8], format: Format) -> Vec<AdExpr> {
    let parser = Parser::new(ParseOptions::default());
    AdReader::new(bytes, format, &parser)
        .enumerate()
        .map(|(i, r)| r.unwrap_or_else(|e| panic!("{format} ad {}: {e}", i + 1)))
        .collect()
}

#[test]
fn xml_pool_round_trip() {
    let generator = shared_dir().join("workloads/gen_pool.py");
    let has_python = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_python || !generator.exists() {
        // Past the test harness's capture, so that a run without ../shared
        // is not mistaken for a run with it.
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED xml_pool_round_trip: needs python3 and {}",
            generator.display()
        );
        return;
    }
    let dir = std::env::temp_dir().join(format!("classad-xml-pool-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let generated = Command::new("python3")
        .arg(&generator)
        .arg("--out")
        .arg(&dir)
        .args(["--machines", "300", "--jobs", "300"])
        .output()
        .expect("run gen_pool.py");
    assert!(
        generated.status.success(),
        "gen_pool.py failed: {}",
        String::from_utf8_lossy(&generated.stderr)
    );
    let mut attributes = 0;
    for name in ["machines", "jobs"] {
        let old = std::fs::read(dir.join(format!("{name}.ads"))).expect("read pool");
        let original = read_ads(&old, Format::Old);
        assert_eq!(original.len(), 300, "{name}: ads generated");
        let xml = syntax::ads_to_xml(&original);
        let parser = Parser::new(ParseOptions::default());
        let detected = AdReader::auto(xml.as_bytes(), &parser).expect("read");
        assert_eq!(detected.format(), Format::Xml);
        let back = read_ads(xml.as_bytes(), Format::Xml);
        assert_eq!(back.len(), original.len(), "{name}: number of ads");
        for (i, (want, have)) in original.iter().zip(&back).enumerate() {
            assert_eq!(
                want.len(),
                have.len(),
                "{name} ad {}: attribute count",
                i + 1
            );
            for ((wn, we), (hn, he)) in want.attributes.iter().zip(&have.attributes) {
                assert_eq!(wn, hn, "{name} ad {}: names", i + 1);
                assert_eq!(we, he, "{name} ad {}: attribute {wn}", i + 1);
                attributes += 1;
            }
            assert_eq!(
                syntax::unparse_ad_old(want),
                syntax::unparse_ad_old(have),
                "{name} ad {}: old text",
                i + 1
            );
        }
        // The compact form reads back the same.
        let compact: String = original.iter().map(syntax::ad_to_xml_compact).collect();
        assert_eq!(read_ads(compact.as_bytes(), Format::Xml), back);
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(attributes > 10_000, "{attributes} attributes compared");
}
