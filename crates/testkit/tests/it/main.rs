//! The integration tests of this crate, as one test binary (one link
//! instead of one per file, as ripgrep's `tests/`): each module was a
//! test file of its own, and keeps its name (`cargo test --test it MODULE::`).

mod differential;
mod harness_detects;
mod reference_rules;
