"""A small, deterministic pool of job and slot ads in old ClassAd syntax,
for the batch tests: enough variety to exercise the matchmaker (static and
partitionable slots, claimed slots, ranks with ties, requirements on both
sides, JobPrio ordering, requests that do and do not fit, unscoped names
that only resolve in the other ad) and small enough for a Python loop of
classad2 calls to check it in well under a second.

The workload generator of the project (../shared/workloads/gen_pool.py) is
not part of the repository, so the tests carry their own.
"""

import random


def slot_ads(n, seed=7):
    rng = random.Random(seed)
    ads = []
    for i in range(n):
        partitionable = rng.random() < 0.3
        state = "Unclaimed" if rng.random() < 0.8 else rng.choice(["Claimed", "Owner", "Matched"])
        arch = rng.choice(["X86_64", "X86_64", "aarch64"])
        cpus = rng.choice([1, 2, 4, 8, 16])
        memory = rng.choice([512, 1024, 2048, 4096, 16384])
        disk = rng.choice([10000, 100000, 1000000])
        kflops = rng.choice([1000, 2000, 2000, 3500])
        requirements = rng.choice(
            [
                "true",
                "TARGET.RequestMemory <= MY.Memory",
                "TARGET.RequestCpus <= Cpus && TARGET.RequestMemory <= Memory",
                'TARGET.Owner != "mallory"',
                "START",
                "isUndefined(TARGET.NoSuchThing) && TARGET.JobPrio >= -5",
            ]
        )
        lines = [
            'MyType = "Machine"',
            'Name = "slot%d@host%d"' % (i, i // 2),
            'State = "%s"' % state,
            'Arch = "%s"' % arch,
            'OpSys = "LINUX"',
            "Cpus = %d" % cpus,
            "Memory = %d" % memory,
            "Disk = %d" % disk,
            "KFlops = %d" % kflops,
            "START = TARGET.RequestDisk <= Disk",
            "Requirements = %s" % requirements,
        ]
        if partitionable:
            lines.append("PartitionableSlot = true")
        if rng.random() < 0.3:
            lines.append("HasDocker = true")
        ads.append("\n".join(lines) + "\n")
    return ads


def job_ads(n, seed=11):
    rng = random.Random(seed)
    ads = []
    for i in range(n):
        owner = rng.choice(["alice", "bob", "carol", "mallory"])
        cpus = rng.choice([1, 1, 2, 4])
        memory = rng.choice([256, 1024, 2048, 8192])
        disk = rng.choice([1000, 50000])
        requirements = rng.choice(
            [
                'TARGET.Arch == "X86_64" && TARGET.Memory >= RequestMemory',
                "TARGET.Cpus >= RequestCpus && Memory >= RequestMemory",  # Memory: unscoped, the slot's
                'OpSys == "LINUX"',
                "TARGET.HasDocker =?= true",
                "true",
                "TARGET.Disk >= RequestDisk && TARGET.KFlops > 1500",
            ]
        )
        rank = rng.choice(["TARGET.KFlops", "TARGET.Memory / 1024.0", "0", "TARGET.Cpus", "TARGET.HasDocker =?= true", "undefinedName"])
        lines = [
            'MyType = "Job"',
            "ClusterId = %d" % (100 + i // 3),
            "ProcId = %d" % (i % 3),
            'Owner = "%s"' % owner,
            "RequestCpus = %d" % cpus,
            "RequestMemory = %d" % memory,
            "RequestDisk = %d" % disk,
            "Requirements = %s" % requirements,
            "Rank = %s" % rank,
        ]
        if rng.random() < 0.5:
            lines.append("JobPrio = %d" % rng.choice([-10, 0, 5]))
        ads.append("\n".join(lines) + "\n")
    return ads


def as_file_text(ads):
    """Old-syntax ads separated by blank lines, as condor_q -long prints them."""
    return "\n".join(ads)
