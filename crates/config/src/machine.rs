//! The machine ads a startd would advertise from a configuration: the
//! detected (or configured) resources divided into slots as
//! `NUM_SLOTS`, `SLOT_TYPE_<n>` and `NUM_SLOTS_TYPE_<n>` say, with the
//! policy expressions (`START`, `RANK`, ...) and `STARTD_ATTRS`.

use crate::Config;
use crate::expand::long_param;

/// Policy knobs copied into every slot ad as expressions.
const POLICY: &[(&str, &str)] = &[
    ("START", "Start"),
    ("RANK", "Rank"),
    ("SUSPEND", "Suspend"),
    ("CONTINUE", "Continue"),
    ("PREEMPT", "Preempt"),
    ("KILL", "Kill"),
    ("WANT_SUSPEND", "WantSuspend"),
    ("WANT_VACATE", "WantVacate"),
    ("IS_OWNER", "IsOwner"),
];

/// What a startd would measure on an idle machine.
const IDLE_STATE: &[(&str, &str)] = &[
    ("LoadAvg", "0.0"),
    ("CondorLoadAvg", "0.0"),
    ("TotalLoadAvg", "0.0"),
    ("TotalCondorLoadAvg", "0.0"),
    ("KeyboardIdle", "86400"),
    ("ConsoleIdle", "86400"),
    ("EnteredCurrentState", "0"),
    ("EnteredCurrentActivity", "0"),
];

fn value(config: &Config, name: &str) -> Option<String> {
    config
        .get(name)
        .ok()
        .flatten()
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

fn number(config: &Config, name: &str) -> Option<i64> {
    value(config, name).and_then(|v| long_param(&v))
}

/// An expression as written when it parses, else a quoted string.
fn expression(text: &str) -> String {
    if classad::syntax::parse_expression(text).is_ok() {
        text.to_string()
    } else {
        let escaped = text.replace('\\', "\\\\").replace('"', "\\\"");
        format!("\"{escaped}\"")
    }
}

fn quoted(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

#[derive(Clone, Copy, Debug)]
struct Share {
    cpus: i64,
    memory: i64,
    disk: i64,
}

/// One resource in a slot type: `cpus=2`, `memory=50%`, `1/4`, ...
fn amount(spec: &str, total: i64, default: i64) -> i64 {
    let spec = spec.trim();
    if let Some(p) = spec.strip_suffix('%') {
        return p
            .trim()
            .parse::<f64>()
            .map_or(default, |p| (total as f64 * p / 100.0) as i64);
    }
    if let Some((a, b)) = spec.split_once('/') {
        let (a, b) = (a.trim().parse::<f64>(), b.trim().parse::<f64>());
        if let (Ok(a), Ok(b)) = (a, b)
            && b != 0.0
        {
            return (total as f64 * a / b) as i64;
        }
        return default;
    }
    let upper = spec.to_ascii_uppercase();
    let (digits, scale) = match upper.chars().last() {
        Some('G') => (&spec[..spec.len() - 1], 1024),
        Some('M') => (&spec[..spec.len() - 1], 1),
        Some('T') => (&spec[..spec.len() - 1], 1024 * 1024),
        _ => (spec, 1),
    };
    digits.trim().parse::<i64>().map_or(default, |n| n * scale)
}

fn slot_type(spec: &str, total: Share, even: Share) -> Share {
    let mut share = even;
    let items: Vec<&str> = spec
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    if items.len() == 1 && !items[0].contains('=') {
        let one = items[0];
        return Share {
            cpus: amount(one, total.cpus, even.cpus).max(1),
            memory: amount(one, total.memory, even.memory),
            disk: amount(one, total.disk, even.disk),
        };
    }
    for item in items {
        let Some((key, v)) = item.split_once('=') else {
            continue;
        };
        match key.trim().to_ascii_lowercase().as_str() {
            "cpus" | "cpu" | "c" => share.cpus = amount(v, total.cpus, even.cpus),
            "memory" | "mem" | "ram" | "m" | "r" => {
                share.memory = amount(v, total.memory, even.memory)
            }
            "disk" | "d" => share.disk = amount(v, total.disk, even.disk),
            _ => {}
        }
    }
    share
}

/// The slot ads of the machine, in old ClassAd syntax, separated by blank
/// lines (what `classad match --machines` reads).
pub fn machine_ad(config: &Config) -> String {
    let host = value(config, "FULL_HOSTNAME").unwrap_or_else(|| "localhost".into());
    let cpus = number(config, "NUM_CPUS")
        .or_else(|| number(config, "DETECTED_CPUS"))
        .unwrap_or(1)
        .max(1);
    let memory = number(config, "MEMORY")
        .or_else(|| number(config, "DETECTED_MEMORY"))
        .unwrap_or(0);
    let disk = number(config, "DISK").unwrap_or(100 * 1024 * 1024);
    let total = Share { cpus, memory, disk };

    let mut slots: Vec<(u32, Share, bool)> = Vec::new();
    for n in 1..=50u32 {
        let Some(spec) = value(config, &format!("SLOT_TYPE_{n}")) else {
            continue;
        };
        let count = number(config, &format!("NUM_SLOTS_TYPE_{n}")).unwrap_or(0);
        let partitionable = value(config, &format!("SLOT_TYPE_{n}_PARTITIONABLE"))
            .is_some_and(|v| v.eq_ignore_ascii_case("true"));
        let share = slot_type(&spec, total, total);
        for _ in 0..count.clamp(0, 4096) {
            slots.push((n, share, partitionable));
        }
    }
    if slots.is_empty() {
        let count = number(config, "NUM_SLOTS").unwrap_or(cpus).clamp(1, 4096);
        let even = Share {
            cpus: (cpus / count).max(1),
            memory: memory / count,
            disk: disk / count,
        };
        for _ in 0..count {
            slots.push((0, even, false));
        }
    }

    let mut out = String::new();
    let opsys = value(config, "OPSYS").unwrap_or_default();
    let arch = value(config, "ARCH").unwrap_or_default();
    let mut extra: Vec<String> = Vec::new();
    for knob in ["STARTD_ATTRS", "STARTD_EXPRS"] {
        if let Some(v) = value(config, knob) {
            extra.extend(
                v.split(|c: char| c == ',' || c.is_whitespace())
                    .filter(|s| !s.is_empty())
                    .map(str::to_string),
            );
        }
    }
    for (i, (slot_type_id, share, partitionable)) in slots.iter().enumerate() {
        let id = i + 1;
        let mut lines: Vec<String> = vec![
            "MyType = \"Machine\"".into(),
            "TargetType = \"Job\"".into(),
            format!("Name = {}", quoted(&format!("slot{id}@{host}"))),
            format!("Machine = {}", quoted(&host)),
            format!("SlotID = {id}"),
            format!("SlotTypeID = {slot_type_id}"),
            format!(
                "SlotType = \"{}\"",
                if *partitionable {
                    "Partitionable"
                } else {
                    "Static"
                }
            ),
            format!("PartitionableSlot = {partitionable}"),
            format!("Cpus = {}", share.cpus),
            format!("TotalCpus = {cpus}"),
            format!("Memory = {}", share.memory),
            format!("TotalMemory = {memory}"),
            format!("Disk = {}", share.disk),
            format!("OpSys = {}", quoted(&opsys)),
            format!("Arch = {}", quoted(&arch)),
            "State = \"Unclaimed\"".into(),
            "Activity = \"Idle\"".into(),
            format!("TotalSlots = {}", slots.len()),
            format!("DetectedCpus = {cpus}"),
            format!("DetectedMemory = {memory}"),
            format!(
                "CondorVersion = \"$CondorVersion: {}.{}.{} $\"",
                crate::CONDOR_VERSION.0,
                crate::CONDOR_VERSION.1,
                crate::CONDOR_VERSION.2
            ),
            "HasFileTransfer = true".into(),
        ];
        // The dynamic state of an idle machine, unless the configuration
        // says otherwise (a startd measures these).
        for (attr, idle) in IDLE_STATE {
            let v = value(config, attr).unwrap_or_else(|| idle.to_string());
            lines.push(format!("{attr} = {}", expression(&v)));
        }
        if let Some(v) = value(config, "UID_DOMAIN") {
            lines.push(format!("UidDomain = {}", quoted(&v)));
        }
        if let Some(v) = value(config, "FILESYSTEM_DOMAIN") {
            lines.push(format!("FileSystemDomain = {}", quoted(&v)));
        }
        for (knob, attr) in POLICY {
            let slot_knob = format!("SLOT_TYPE_{slot_type_id}_{knob}");
            let v = (*slot_type_id > 0)
                .then(|| value(config, &slot_knob))
                .flatten()
                .or_else(|| value(config, knob));
            if let Some(v) = v {
                lines.push(format!("{attr} = {}", expression(&v)));
            }
        }
        for name in &extra {
            if let Some(v) = value(config, name) {
                lines.push(format!("{name} = {}", expression(&v)));
            }
        }
        lines.push(
            "WithinResourceLimits = (TARGET.RequestCpus =?= undefined || TARGET.RequestCpus <= MY.Cpus) \
             && (TARGET.RequestMemory =?= undefined || TARGET.RequestMemory <= MY.Memory) \
             && (TARGET.RequestDisk =?= undefined || TARGET.RequestDisk <= MY.Disk)"
                .into(),
        );
        lines.push("Requirements = (START) && (WithinResourceLimits)".into());
        for line in lines {
            out.push_str(&line);
            out.push('\n');
        }
        out.push('\n');
    }
    out
}
