//! `classad config`: HTCondor's `condor_config_val` over our reader of
//! the configuration language (crate `classad-config`).
//!
//! `classad config [-f FILE] [-subsystem NAME] [-local-name NAME]
//! [-allow-commands] [-strict-functions] [-v] [-raw] [-eval] [-json] [-dump | -machine-ad |
//! NAME...]`: without `-f`, the configuration is found as HTCondor finds
//! it (`CONDOR_CONFIG`, then the well-known places).

use classad_config::{Config, Options, SystemHost};
use std::process::ExitCode;

const USAGE: &str = "usage: classad config [-f FILE] [-subsystem NAME] [-local-name NAME] \
[-allow-commands] [-strict-functions] [-v] [-raw] [-eval] [-json] [-dump | -machine-ad | NAME...]";

fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn evaluate(text: &str) -> String {
    match classad::evaluate_str(text) {
        Ok(v) => classad::vm::print::value_to_string(&v),
        Err(e) => format!("parse error: {e}"),
    }
}

pub fn run(args: &[String]) -> ExitCode {
    let mut options = Options::default();
    let mut file = None;
    let (mut verbose, mut raw, mut eval, mut json, mut dump, mut machine) =
        (false, false, false, false, false, false);
    let mut names = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        let mut value = || {
            i += 1;
            args.get(i).cloned()
        };
        match arg.trim_start_matches('-') {
            _ if !arg.starts_with('-') => names.push(arg.to_string()),
            "f" | "config" | "file" => file = value(),
            "subsystem" => match value() {
                Some(s) => options.subsystem = s.to_ascii_uppercase(),
                None => return usage(),
            },
            "local-name" | "local_name" => options.local_name = value(),
            "allow-commands" => options.allow_commands = true,
            "strict-functions" => options.strict_functions = true,
            "v" | "verbose" => verbose = true,
            "raw" => raw = true,
            "eval" => eval = true,
            "json" => json = true,
            "dump" => dump = true,
            "machine-ad" => machine = true,
            "h" | "help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            _ => {
                eprintln!("classad config: unknown option `{arg}`");
                return usage();
            }
        }
        if file.is_none() && matches!(arg.trim_start_matches('-'), "f" | "config" | "file") {
            return usage();
        }
        i += 1;
    }
    let host = SystemHost;
    let config = match &file {
        Some(path) => Config::read_file(path, &host, options),
        None => Config::load(&host, options),
    };
    for d in config.diagnostics() {
        eprintln!("{d}");
    }
    for problem in config.install_user_maps(&host) {
        eprintln!("warning: {problem}");
    }
    let mut status = if config.has_errors() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    };
    if machine {
        print!("{}", classad_config::machine_ad(&config));
        return status;
    }
    if dump {
        let mut entries: Vec<_> = config.entries().iter().collect();
        entries.sort_by_key(|e| e.name.to_ascii_uppercase());
        let mut items = Vec::new();
        for entry in entries {
            let text = if raw {
                entry.raw.clone()
            } else {
                match config.expand(&entry.raw) {
                    Ok(v) => v,
                    Err(e) => format!("<error: {e}>"),
                }
            };
            if json {
                items.push(format!(
                    "{}: {}",
                    json_string(&entry.name),
                    json_string(&text)
                ));
            } else {
                println!("{} = {}", entry.name, text);
            }
        }
        if json {
            println!("{{{}}}", items.join(", "));
        }
        return status;
    }
    if names.is_empty() {
        return usage();
    }
    let mut json_items = Vec::new();
    for name in &names {
        let result = if raw {
            Ok(config.raw(name).map(str::to_string))
        } else {
            config.get(name)
        };
        if json {
            let v = match &result {
                Ok(Some(v)) => json_string(v),
                Ok(None) => "null".to_string(),
                Err(e) => format!("{{\"error\": {}}}", json_string(&e.0)),
            };
            json_items.push(format!("{}: {v}", json_string(name)));
            continue;
        }
        match result {
            Ok(Some(v)) => {
                let shown = if eval { evaluate(&v) } else { v };
                if verbose {
                    // condor_config_val -v: the name, where, and the raw value.
                    println!("{name} = {shown}");
                } else {
                    println!("{shown}");
                }
                if verbose && let Some((raw_value, source)) = config.lookup(name) {
                    if source.line > 0 {
                        println!(" # at: {}, line {}", source.file, source.line);
                    } else {
                        println!(" # at: {}", source.file);
                    }
                    println!(" # raw: {name} = {raw_value}");
                }
            }
            Ok(None) => {
                eprintln!("Not defined: {name}");
                status = ExitCode::from(1);
            }
            Err(e) => {
                eprintln!("error: {name}: {e}");
                status = ExitCode::from(1);
            }
        }
    }
    if json {
        println!("{{{}}}", json_items.join(", "));
    }
    status
}

fn usage() -> ExitCode {
    eprintln!("{USAGE}");
    ExitCode::from(2)
}
