//! `classad convert`: ads from one form to another (being written).

use std::process::ExitCode;

pub fn run(_args: &[String]) -> ExitCode {
    eprintln!("classad convert: not written yet");
    ExitCode::from(2)
}
