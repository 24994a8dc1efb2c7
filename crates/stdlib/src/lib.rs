//! The ClassAd builtin function library.
//!
//! Every function of the specification (spec 003, "Predefined Functions")
//! described as data (name, arity, strictness, function pointer) in one
//! registry whose names are checked unique, plus the public API through
//! which a program registers functions of its own (the counterpart of
//! HTCondor's `CLASSAD_USER_LIBS`).
//!
//! Status: the layer is being built (issue "builtin function library").
