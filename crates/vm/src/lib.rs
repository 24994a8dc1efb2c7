//! The ClassAd virtual machine.
//!
//! Owns the runtime: the [`Value`](crate) type (undefined, error, boolean,
//! integer, real, string, absolute and relative time, list, ad), the
//! bytecode format that the compiler emits and its verifier, the
//! interpreter loop, scopes (`MY`, `TARGET`, `parent`, `root`), and batch
//! evaluation of one program against many ads or pairs of ads.
//!
//! Status: the layer is being built (issue "Language core II").
