//! The facts of the real machine, read from `/proc` and `/etc` where
//! they exist (Linux), with plain fallbacks elsewhere.

use crate::host::Facts;

fn read(path: &str) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

fn passwd_entries() -> Vec<Vec<String>> {
    read("/etc/passwd")
        .unwrap_or_default()
        .lines()
        .map(|l| l.split(':').map(str::to_string).collect())
        .collect()
}

fn uid() -> Option<u32> {
    let status = read("/proc/self/status")?;
    let line = status.lines().find(|l| l.starts_with("Uid:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn ip_address() -> String {
    // A connected UDP socket sends nothing; it only asks the routing
    // table which local address would be used.
    let probe = std::net::UdpSocket::bind("0.0.0.0:0")
        .and_then(|s| s.connect("192.0.2.1:9").map(|_| s))
        .and_then(|s| s.local_addr());
    match probe {
        Ok(addr) if !addr.ip().is_unspecified() => addr.ip().to_string(),
        _ => "127.0.0.1".to_string(),
    }
}

/// Reads the facts of this machine.
pub fn system_facts() -> Facts {
    let hostname = read("/proc/sys/kernel/hostname")
        .or_else(|| read("/etc/hostname"))
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "localhost".to_string());
    let short = hostname.split('.').next().unwrap_or("").to_string();
    let cpuinfo = read("/proc/cpuinfo").unwrap_or_default();
    let mut cores = cpuinfo
        .lines()
        .filter(|l| l.starts_with("processor"))
        .count() as u32;
    if cores == 0 {
        cores = std::thread::available_parallelism()
            .map(|n| n.get() as u32)
            .unwrap_or(1);
    }
    let mut physical = std::collections::BTreeSet::new();
    let mut package = String::new();
    for line in cpuinfo.lines() {
        if let Some((key, value)) = line.split_once(':') {
            match key.trim() {
                "physical id" => package = value.trim().to_string(),
                "core id" => {
                    physical.insert((package.clone(), value.trim().to_string()));
                }
                _ => {}
            }
        }
    }
    let physical_cpus = if physical.is_empty() {
        cores
    } else {
        physical.len() as u32
    };
    let memory_mb = read("/proc/meminfo")
        .and_then(|m| {
            let line = m.lines().find(|l| l.starts_with("MemTotal:"))?.to_string();
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        })
        .map(|kb| kb / 1024)
        .unwrap_or(0);
    let uname_opsys = read("/proc/sys/kernel/ostype")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| {
            let os = std::env::consts::OS;
            let mut c = os.chars();
            c.next()
                .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
                .unwrap_or_default()
        });
    let ppid = read("/proc/self/stat")
        .and_then(|s| {
            let after = s.rsplit_once(')')?.1.to_string();
            after.split_whitespace().nth(1)?.parse().ok()
        })
        .unwrap_or(0);
    let passwd = passwd_entries();
    let uid = uid();
    let username = uid
        .and_then(|u| {
            passwd
                .iter()
                .find(|e| e.get(2).and_then(|x| x.parse::<u32>().ok()) == Some(u))
                .map(|e| e[0].clone())
        })
        .or_else(|| std::env::var("USER").ok())
        .unwrap_or_default();
    let tilde = passwd
        .iter()
        .find(|e| e.first().map(String::as_str) == Some("condor"))
        .and_then(|e| e.get(5).cloned());
    let ip = ip_address();
    let is_v6 = ip.contains(':');
    Facts {
        hostname: short,
        full_hostname: hostname,
        ipv4_address: (!is_v6).then(|| ip.clone()),
        ipv6_address: is_v6.then(|| ip.clone()),
        ip_address: ip,
        cores,
        physical_cpus,
        memory_mb,
        uname_opsys,
        uname_arch: std::env::consts::ARCH.to_string(),
        pid: std::process::id(),
        ppid,
        username,
        tilde,
        is_root: uid == Some(0),
        home: std::env::var("HOME").ok(),
    }
}
