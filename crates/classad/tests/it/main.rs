//! The integration tests of this crate, as one test binary (one link
//! instead of one per file, as ripgrep's `tests/`): each module was a
//! test file of its own, and keeps its name (`cargo test --test it MODULE::`).

mod classad_api;
mod compile_cache;
mod deep_eval;
mod depth_model;
mod disasm;
mod functional;
mod match_introspection;
mod match_pool;
mod step_budget;
mod user_arguments;
mod xml_pool;
