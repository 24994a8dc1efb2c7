//! The integration tests of this crate, as one test binary (one link
//! instead of one per file, as ripgrep's `tests/`): each module was a
//! test file of its own, and keeps its name (`cargo test --test it MODULE::`).

mod budget;
#[path = "../common/mod.rs"]
mod common;
mod convert;
mod core;
mod env;
mod introspection;
mod jdl;
mod lazy_list_arguments;
mod lists;
mod math;
mod scope;
mod stringlist;
mod strings;
mod symmetric_match;
mod text_of_values;
mod time;
mod version;
