//! Pools built from generated ads that the input overrides: a negotiation
//! cycle and all-pairs matching never panic, and all-pairs answers the
//! same with one worker thread as with two.
//!
//! Input: three bytes (jobs, slots, seed), then text split at `%%` into
//! old-syntax lines appended to one job ad, lines appended to one slot ad,
//! and a policy file. Later lines of an old-syntax ad replace earlier ones,
//! so the overrides change the attributes the generator wrote.
#![no_main]
use classad_matchmaker::{Options, Policy, Pool, generate, read_ad_text};
use libfuzzer_sys::fuzz_target;

fn overridden(generated: &str, pick: usize, extra: &str) -> String {
    let ads: Vec<&str> = generated
        .split("\n\n")
        .filter(|a| !a.trim().is_empty())
        .collect();
    let pick = pick % ads.len().max(1);
    let mut out = String::new();
    for (i, ad) in ads.iter().enumerate() {
        out.push_str(ad.trim_end());
        out.push('\n');
        if i == pick && !extra.is_empty() {
            out.push_str(extra.trim_matches('\n'));
            out.push('\n');
        }
        out.push('\n');
    }
    out
}

fn pool(jobs: &str, slots: &str, policy: &Option<Policy>, threads: usize) -> Pool {
    let mut pool = Pool::new(Options {
        threads,
        ..Options::default()
    });
    if let Some(policy) = policy {
        pool.set_policy(policy.clone());
    }
    for (_, ad) in read_ad_text(jobs.as_bytes(), "jobs").ads {
        let _ = pool.add_job(ad);
    }
    for (_, ad) in read_ad_text(slots.as_bytes(), "slots").ads {
        let _ = pool.add_slot(ad);
    }
    pool
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 3 {
        return;
    }
    let (n_jobs, n_slots, seed) = (
        1 + (data[0] & 7) as usize,
        1 + (data[1] & 7) as usize,
        data[2],
    );
    let text = String::from_utf8_lossy(&data[3..]);
    let mut parts = text.splitn(3, "%%");
    let job_extra = parts.next().unwrap_or("");
    let slot_extra = parts.next().unwrap_or("");
    let policy = parts.next().and_then(|p| Policy::parse(p).ok());

    let jobs = overridden(
        &generate::jobs(n_jobs, u64::from(seed)),
        seed as usize,
        job_extra,
    );
    let slots = overridden(
        &generate::slots(n_slots, u64::from(seed)),
        seed as usize / 8,
        slot_extra,
    );

    let one = pool(&jobs, &slots, &policy, 1);
    let two = pool(&jobs, &slots, &policy, 2);
    let _ = one.negotiate();
    for j in 0..one.jobs().len() {
        let _ = one.candidates(j);
        let _ = one.analyze(j);
    }
    match (one.all_pairs(), two.all_pairs()) {
        (Ok(a), Ok(b)) => {
            for j in 0..one.jobs().len() {
                assert_eq!(
                    format!("{:?}", a.of_job(j)),
                    format!("{:?}", b.of_job(j)),
                    "all_pairs differs between 1 and 2 threads for job {j}"
                );
            }
        }
        (Err(_), Err(_)) => {}
        (a, b) => panic!("all_pairs: 1 thread {:?}, 2 threads {:?}", a.err(), b.err()),
    }
    if let (Ok(a), Ok(b)) = (one.negotiate(), two.negotiate()) {
        let key = |n: &classad_matchmaker::Negotiation| {
            n.assignments
                .iter()
                .map(|a| (a.job, a.slot))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            key(&a),
            key(&b),
            "negotiation differs between 1 and 2 threads"
        );
    }
});
