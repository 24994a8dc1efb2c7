//! Test kit for the ClassAd crates.
//!
//! * [`reference`](mod@crate::reference): a small recursive tree-walking evaluator over the AST,
//!   written to be obviously correct rather than fast, that implements the
//!   same rules as the VM (docs/semantics.md) without bytecode or constant
//!   folding. It shares only the pure operator functions of
//!   `classad_vm::ops` and the builtin functions of the stdlib.
//! * [`generator`]: a seeded, dependency-free generator of typed random
//!   expressions and ads.
//! * [`mutate`]: seeded mutants of corpus expressions (tokens and
//!   characters changed), for the oracle.
//! * [`harness`]: the differential comparison of the VM against the
//!   reference.
//!
//! The binary `gen-exprs` prints generated expressions for the oracle
//! (`tests/gen/run_difftest.sh`).

pub mod generator;
pub mod harness;
pub mod mutate;
pub mod reference;
