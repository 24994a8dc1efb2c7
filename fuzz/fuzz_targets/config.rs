//! Any configuration file, read through the in-memory host: reading never
//! panics, every name it defines expands (to a value or an error), and
//! the machine ad built from it is produced.
#![no_main]
use classad_config::{Config, MemoryHost, Options};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // A second file and a command, so `include` lines have something to find.
    let host = MemoryHost::new()
        .file("/etc/condor/condor_config", text)
        .file("/etc/condor/other.conf", "OTHER = $(A) x\nA = 1\n")
        .command("echo hi", "HI = 1\n", 0)
        .var("HOME", "/home/fuzz");
    let options = Options {
        random_seed: Some(1),
        ..Options::default()
    };
    for config in [
        Config::read_str("/etc/condor/condor_config", text, &host, options.clone()),
        Config::read_file("/etc/condor/condor_config", &host, options.clone()),
    ] {
        let names: Vec<String> = config.entries().iter().map(|e| e.name.clone()).collect();
        for name in &names {
            let _ = config.get(name);
        }
        let _ = config.expand(text.lines().next().unwrap_or(""));
        let _ = classad_config::machine_ad(&config);
        for d in config.diagnostics() {
            let _ = format!("{d:?}");
        }
    }
});
