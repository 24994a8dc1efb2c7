//! The ClassAd compiler.
//!
//! Lowers a [`classad_syntax::Expr`] into the VM's stack bytecode: constant
//! folding of pure sub-expressions, interning of attribute names, and
//! resolution of attribute references to slots wherever the ad layout is
//! known (own ad, `MY`/`TARGET` of a match, parent ads), with a by-name
//! lookup only where it is not. `&&`, `||`, `?:` and elvis get dedicated
//! three-valued short-circuit instructions.
//!
//! Status: the layer is being built (issue "Language core II").
