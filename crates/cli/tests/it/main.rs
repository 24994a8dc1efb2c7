//! The integration tests of this crate, as one test binary (one link
//! instead of one per file, as ripgrep's `tests/`): each module was a
//! test file of its own, and keeps its name (`cargo test --test it MODULE::`).

mod batch_lines;
mod check;
mod classad_eval;
mod cli_conventions;
#[path = "../common/mod.rs"]
mod common;
mod config_cmd;
mod config_oracle;
mod convert_pool;
mod convert_robust;
mod corrections;
mod docs_examples;
mod docs_semantics;
mod endless_input;
mod hostile;
mod jdl_dialect;
mod match_cli;
mod match_context;
mod parse_hostile;
mod parse_tree;
mod query_cli;
mod realistic_pool;
