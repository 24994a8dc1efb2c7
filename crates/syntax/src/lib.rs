//! ClassAd syntax: the grammar, the tree, and the ways text comes in and
//! goes out.
//!
//! This crate owns everything about ClassAd *text*: the pest grammar of the
//! new syntax (`[a = 1; b = {1, 2}]`, spec 003 and 004) and the old
//! `Name = expr` line syntax (spec 002, as `condor_q -long` prints), the
//! [`ast`] with source spans, the unparsers to new syntax, old syntax and
//! HTCondor's JSON and XML forms, and [`ParseError`] diagnostics with line and
//! column. It knows nothing of evaluation.
//!
//! ```
//! let expr = classad_syntax::parse_expression("Memory >= 1024 && Arch == \"X86_64\"").unwrap();
//! assert_eq!(classad_syntax::unparse(&expr), "Memory >= 1024 && Arch == \"X86_64\"");
//! ```

// pest is built without its `std` feature (which probes the stack on every
// rule call, a fifth of parse time; our own nesting bound makes the probe
// unneeded), and its generated parser then names the `alloc` crate.
extern crate alloc;

pub mod ast;
pub mod diag;
pub mod fast;
mod parse_depth;
pub mod parser;
pub mod time;

pub use ast::{AdExpr, BinaryOp, Expr, ExprKind, Literal, Name, Span, UnaryOp};
pub use diag::ParseError;
pub use parser::{Dialect, ParseOptions, Parser, StringRules, parse_ad, parse_expression};
pub mod unparse;

pub use unparse::{
    Syntax, unparse, unparse_ad, unparse_ad_old, unparse_ad_pretty, unparse_old, unparse_pretty,
};

pub mod json;
pub mod lines;
pub mod read;
pub mod xml;

pub use json::{ad_to_json, ad_to_json_compact, parse_json_ad, parse_json_ads, write_ad_json};
pub use read::{
    AdError, AdReader, AdWarning, Format, ReadAds, detect_format, read_ads_parallel,
    read_ads_parallel_map,
};
pub use xml::{
    XML_FOOTER, XML_HEADER, ad_to_xml, ad_to_xml_compact, ads_to_xml, parse_xml_ad, parse_xml_ads,
    write_ad_xml,
};
