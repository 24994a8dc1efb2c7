//! `classad config`: HTCondor's `condor_config_val` over our reader of
//! the configuration language (crate `classad-config`).
//!
//! `classad config [-f FILE] [-subsystem NAME] [-local-name NAME]
//! [-allow-commands] [-strict-functions] [-v] [-raw] [-eval] [-json] [-dump | -machine-ad |
//! NAME...]`: without `-f`, the configuration is found as HTCondor finds
//! it (`CONDOR_CONFIG`, then the well-known places).

use crate::json_text::json_string;
use classad_config::{Config, Options, SystemHost};
use std::process::ExitCode;

/// HTCondor configuration values, like `condor_config_val`.
///
/// Without `-f`, the configuration is found as HTCondor finds it
/// (`CONDOR_CONFIG`, then the well-known places). Options may be spelled
/// with one dash, as condor_config_val spells them.
#[derive(clap::Args)]
#[command(after_help = concat!(
    "Examples:
  classad config -f pool.conf START RANK           expanded values, one a line
  classad config -f pool.conf -v START             with the file and line, and the raw definition
  classad config -f pool.conf -eval SHUTDOWN_GRACEFUL_TIMEOUT
  classad config -f pool.conf -dump -raw           every definition
  classad config -subsystem SCHEDD -local-name XYZZY SPOOL
  classad config -f pool.conf -machine-ad > machines.ad

A name that is not defined is reported on standard error (`Not defined: NAME`)
and makes the status 1.",
    exit_status!()
))]
pub struct ConfigArgs {
    /// Read this configuration file instead of finding one.
    #[arg(
        short = 'f',
        long = "config",
        visible_alias = "file",
        value_name = "FILE",
        allow_hyphen_values = true
    )]
    file: Option<String>,
    /// The subsystem whose view of the configuration to take (SCHEDD, STARTD, ...).
    #[arg(long, value_name = "NAME")]
    subsystem: Option<String>,
    /// The local name (`SUBSYS.LOCALNAME.X` definitions).
    #[arg(long = "local-name", alias = "local_name", value_name = "NAME")]
    local_name: Option<String>,
    /// Run the commands of `include : cmd |` and `include command : cmd` (off: configuration text cannot run programs).
    #[arg(long = "allow-commands")]
    allow_commands: bool,
    /// A failing function macro ($INT(abc), ...) is an error, not nothing.
    #[arg(long = "strict-functions")]
    strict_functions: bool,
    /// Print `NAME = value`, where it was defined and its raw definition.
    #[arg(short = 'v', long, visible_alias = "verbose")]
    verbose: bool,
    /// Values as written, not expanded.
    #[arg(long)]
    raw: bool,
    /// Evaluate each value as a ClassAd expression.
    #[arg(long)]
    eval: bool,
    /// Print a JSON object of the names asked (or of every definition with -dump).
    #[arg(long)]
    json: bool,
    /// Print every definition, sorted by name (NAMEs are then ignored).
    #[arg(long)]
    dump: bool,
    /// Print the machine ad a startd would advertise from this configuration.
    #[arg(long = "machine-ad")]
    machine_ad: bool,
    /// Bytes of configuration text read in all (files, included files,
    /// command output), each file also counting 1 KiB; K, M, G suffixes
    /// (default 64M). Past it nothing more is read and an error says so.
    #[arg(long = "max-input", value_name = "BYTES", value_parser = crate::args::size)]
    max_input: Option<u64>,
    /// The names to look up.
    #[arg(value_name = "NAME", required_unless_present_any = ["dump", "machine_ad"])]
    names: Vec<String>,
}

fn evaluate(text: &str) -> String {
    match classad::evaluate_str(text) {
        Ok(v) => classad::vm::print::value_to_string(&v),
        Err(e) => format!("parse error: {e}"),
    }
}

pub fn run(args: ConfigArgs) -> ExitCode {
    let mut options = Options::default();
    if let Some(subsystem) = args.subsystem {
        options.subsystem = subsystem.to_ascii_uppercase();
    }
    options.local_name = args.local_name;
    options.allow_commands = args.allow_commands;
    options.strict_functions = args.strict_functions;
    if let Some(bytes) = args.max_input {
        options.max_input = bytes;
    }
    let file = args.file;
    let (verbose, raw, eval, json, dump, machine) = (
        args.verbose,
        args.raw,
        args.eval,
        args.json,
        args.dump,
        args.machine_ad,
    );
    let names = args.names;
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
