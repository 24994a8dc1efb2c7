//! Prints the lines of old-syntax files that the fast path leaves to the
//! grammar, grouped by attribute name, most frequent first:
//! `cargo run --release -p classad-syntax --example declined FILE...`.

#![allow(missing_docs)]

fn main() {
    let parser = classad_syntax::Parser::new(classad_syntax::ParseOptions::default());
    let mut counts = std::collections::BTreeMap::new();
    let mut lines = 0;
    for path in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&path).expect("a readable UTF-8 file");
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            lines += 1;
            if classad_syntax::fast::old_line(&parser, line).is_none() {
                let name = line.split('=').next().unwrap_or("").trim().to_string();
                let entry = counts.entry(name).or_insert((0, String::new()));
                entry.0 += 1;
                entry.1 = line.chars().take(150).collect();
            }
        }
    }
    let mut counts: Vec<_> = counts.into_iter().collect();
    counts.sort_by_key(|(_, (n, _))| std::cmp::Reverse(*n));
    let declined: usize = counts.iter().map(|(_, (n, _))| n).sum();
    println!("{declined} of {lines} lines declined");
    for (name, (n, line)) in counts.iter().take(30) {
        println!("{n:6} {name}: {line}");
    }
}
