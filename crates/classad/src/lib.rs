//! The ClassAd language: the crate users depend on.
//!
//! Re-exports the layers behind one API: [`syntax`] (parsing, unparsing,
//! diagnostics), and, as they land, compilation, evaluation and matchmaking.
//!
//! ```
//! let ad = classad::syntax::parse_ad("[Memory = 2048; Arch = \"X86_64\"]").unwrap();
//! assert_eq!(ad.len(), 2);
//! ```

pub use classad_compiler as compiler;
pub use classad_stdlib as stdlib;
pub use classad_syntax as syntax;
pub use classad_vm as vm;
