//! The Slurm recipes of docs/usage.md (`docs/recipes/slurm/`), submitted as
//! they are to a real one-node cluster: MUNGE, `slurmctld` and `slurmd`
//! from Debian's packages, started here in a temporary folder on free
//! ports and stopped by their PIDs at the end (also when the test fails).
//! A sharded run and a sharded sweep, each merged by a dependent job, give
//! the single run's CSV byte for byte; a shard that failed and is rerun
//! alone gives the same bytes.
//!
//! Needs root (slurmd starts the jobs) and the packages `munge`,
//! `slurmctld`, `slurmd`, `slurm-client` (`.ci/run` installs them).
//! Without them the test says so loudly and passes, except under
//! `CI=true`, where it fails.

use std::io::Read;
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::util::{is_root, path_with_warcrunch, read, repo, skipped};

/// The daemons this test needs, by the package that brings each.
const DAEMONS: [(&str, &str); 4] = [
    ("munged", "munge"),
    ("slurmctld", "slurmctld"),
    ("slurmd", "slurmd"),
    ("sbatch", "slurm-client"),
];

/// A one-node cluster in a temporary folder; its daemons are stopped by
/// their PIDs when it is dropped.
struct Cluster {
    dir: tempfile::TempDir,
    daemons: Vec<(&'static str, Child)>,
}

/// Whether `program` is on the PATH (or in the sbin folders).
fn installed(program: &str) -> bool {
    Command::new("sh")
        .arg("-c")
        .arg(format!(
            "PATH=$PATH:/usr/sbin:/sbin command -v {program} >/dev/null"
        ))
        .status()
        .is_ok_and(|s| s.success())
}

/// A port free at the time of asking.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn hostname() -> String {
    let out = Command::new("hostname").arg("-s").output().unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

impl Cluster {
    /// Starts the cluster; `None` (after saying why) when it cannot run
    /// here, a failure under `CI=true`.
    fn start() -> Option<Cluster> {
        let missing: Vec<&str> = DAEMONS
            .iter()
            .filter(|(program, _)| !installed(program))
            .map(|(_, package)| *package)
            .collect();
        let why = if !missing.is_empty() {
            Some(format!(
                "Slurm test: install {} (apt-get install {})",
                missing.join(", "),
                missing.join(" ")
            ))
        } else if !is_root() {
            Some("Slurm test: slurmd must run as root".to_owned())
        } else {
            None
        };
        if let Some(why) = why {
            skipped(&why);
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let at = |name: &str| dir.path().join(name);
        for folder in ["state", "spool", "log"] {
            std::fs::create_dir(at(folder)).unwrap();
        }
        let mut key = Vec::new();
        std::fs::File::open("/dev/urandom")
            .unwrap()
            .take(1024)
            .read_to_end(&mut key)
            .unwrap();
        std::fs::write(at("munge.key"), key).unwrap();
        std::fs::set_permissions(at("munge.key"), std::fs::Permissions::from_mode(0o600)).unwrap();
        let host = hostname();
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let path = |name: &str| at(name).display().to_string();
        let conf = format!(
            "ClusterName=warcrunch\n\
             SlurmctldHost={host}\n\
             SlurmUser=root\n\
             SlurmdUser=root\n\
             AuthType=auth/munge\n\
             AuthInfo=socket={socket}\n\
             CredType=cred/munge\n\
             SlurmctldPort={ctld_port}\n\
             SlurmdPort={d_port}\n\
             StateSaveLocation={state}\n\
             SlurmdSpoolDir={spool}\n\
             SlurmctldPidFile={ctld_pid}\n\
             SlurmdPidFile={d_pid}\n\
             SlurmctldLogFile={ctld_log}\n\
             SlurmdLogFile={d_log}\n\
             ProctrackType=proctrack/linuxproc\n\
             TaskPlugin=task/none\n\
             SchedulerType=sched/backfill\n\
             SelectType=select/cons_tres\n\
             SelectTypeParameters=CR_Core\n\
             ReturnToService=2\n\
             MpiDefault=none\n\
             JobCompType=jobcomp/none\n\
             AccountingStorageType=accounting_storage/none\n\
             NodeName={host} CPUs={cpus} State=UNKNOWN\n\
             PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n",
            socket = path("munge.socket"),
            ctld_port = free_port(),
            d_port = free_port(),
            state = path("state"),
            spool = path("spool"),
            ctld_pid = path("slurmctld.pid"),
            d_pid = path("slurmd.pid"),
            ctld_log = path("log/slurmctld.log"),
            d_log = path("log/slurmd.log"),
        );
        std::fs::write(at("slurm.conf"), conf).unwrap();
        let munged_args = [
            "--foreground".to_owned(),
            "--force".to_owned(),
            format!("--key-file={}", path("munge.key")),
            format!("--socket={}", path("munge.socket")),
            format!("--pid-file={}", path("munged.pid")),
            format!("--log-file={}", path("log/munged.log")),
            format!("--seed-file={}", path("munged.seed")),
        ];
        let mut cluster = Cluster {
            dir,
            daemons: Vec::new(),
        };
        cluster.spawn("munged", Command::new("munged").args(munged_args));
        cluster.wait_for("the MUNGE socket", |c| c.at("munge.socket").exists());
        for daemon in ["slurmctld", "slurmd"] {
            cluster.spawn(
                daemon,
                Command::new(daemon)
                    .arg("-D")
                    .arg("-f")
                    .arg(cluster.at("slurm.conf")),
            );
        }
        cluster.wait_for("the node to be idle", |c| {
            c.command("sinfo")
                .args(["-h", "-o", "%T"])
                .output()
                .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "idle")
        });
        Some(cluster)
    }

    fn at(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn spawn(&mut self, name: &'static str, command: &mut Command) {
        let log = std::fs::File::create(self.at(&format!("log/{name}.out"))).unwrap();
        let child = command
            .env(
                "PATH",
                format!("{}:/usr/sbin:/sbin", std::env::var("PATH").unwrap()),
            )
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {name}: {e}"));
        self.daemons.push((name, child));
    }

    /// Waits up to a minute for `ready`, failing with the daemons' logs.
    fn wait_for(&mut self, what: &str, ready: impl Fn(&Cluster) -> bool) {
        let start = Instant::now();
        while !ready(self) {
            for (name, child) in &mut self.daemons {
                if let Ok(Some(status)) = child.try_wait() {
                    panic!(
                        "{name} stopped ({status}) while waiting for {what}:\n{}",
                        cluster_logs(self.dir.path())
                    );
                }
            }
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "no {what} after a minute:\n{}",
                cluster_logs(self.dir.path())
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// A Slurm client command talking to this cluster, run in `work`, the
    /// warcrunch under test first on its PATH.
    fn command(&self, program: &str) -> Command {
        let mut command = Command::new(program);
        command
            .env("SLURM_CONF", self.at("slurm.conf"))
            .env("PATH", path_with_warcrunch())
            .env_remove("SBATCH_WAIT")
            .env_remove("CPUS_PER_TASK");
        command
    }
}

/// Every log the cluster wrote, for a failure's message.
fn cluster_logs(dir: &Path) -> String {
    let mut out = String::new();
    for entry in std::fs::read_dir(dir.join("log")).into_iter().flatten() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let tail: Vec<&str> = text.lines().rev().take(15).collect();
        out.push_str(&format!("== {}\n", path.display()));
        for line in tail.into_iter().rev() {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // slurmd first, so no job is left half-started; each by its PID.
        for (_, child) in self.daemons.iter_mut().rev() {
            let _ = Command::new("kill")
                .args(["-TERM", &child.id().to_string()])
                .status();
            let start = Instant::now();
            while matches!(child.try_wait(), Ok(None)) && start.elapsed() < Duration::from_secs(10)
            {
                std::thread::sleep(Duration::from_millis(100));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn recipe(name: &str) -> PathBuf {
    repo().join("docs/recipes/slurm").join(name)
}

/// Runs `command` in `work`, failing with its output and the cluster's logs.
fn ok(cluster: &Cluster, command: &mut Command, work: &Path) -> String {
    let out = command.current_dir(work).output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "{command:?} failed: {text}\n{}\njob logs:\n{}",
        cluster_logs(cluster.dir.path()),
        job_logs(work)
    );
    text
}

/// The jobs' own logs in `work`.
fn job_logs(work: &Path) -> String {
    let mut out = String::new();
    for entry in std::fs::read_dir(work).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "log") {
            out.push_str(&format!("== {}\n{}", path.display(), read(&path)));
        }
    }
    out
}

/// The files of `names` in `a` and `b` are equal byte for byte.
fn same_bytes(a: &Path, b: &Path, names: &[&str]) {
    for name in names {
        let (x, y) = (
            std::fs::read(a.join(name)).unwrap(),
            std::fs::read(b.join(name)).unwrap(),
        );
        assert!(x == y, "{name}: {} and {} differ", a.display(), b.display());
    }
}

#[test]
fn slurm_recipes_run_on_a_real_cluster_and_merge_to_the_single_runs_bytes() {
    let Some(cluster) = Cluster::start() else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let work = work.path();
    let ambush = repo().join("scenarios/gurps/ambush_at_the_ford.toml");
    let ambush = ambush.to_str().unwrap();
    let run: &[&str] = &["run", ambush, "--trials", "120000", "--seed", "9"];
    let sweep: &[&str] = &[
        "sweep",
        ambush,
        "--set",
        "heroes.Titus.risk=-1..1",
        "--trials",
        "40000",
        "--seed",
        "3",
    ];
    let single = |args: &[&str], out: &str| {
        crate::util::warcrunch()
            .args(args)
            .args(["--quiet", "--out"])
            .arg(work.join(out))
            .assert()
            .success();
    };
    single(run, "single_run");
    single(sweep, "single_sweep");

    // The documented way: submit.sh, its array and the merge depending on it.
    // The sweep's shards take both cores and two threads each.
    for (args, parts, merged, cpus) in [
        (run, "parts_run", "merged_run", "1"),
        (sweep, "parts_sweep", "merged_sweep", "2"),
    ] {
        ok(
            &cluster,
            cluster
                .command(recipe("submit.sh").to_str().unwrap())
                .env("SBATCH_WAIT", "1")
                .env("CPUS_PER_TASK", cpus)
                .args(["4", parts, merged])
                .args(args),
            work,
        );
    }
    same_bytes(
        &work.join("single_run"),
        &work.join("merged_run"),
        &["distributions.csv", "summary.csv"],
    );
    for (parts, threads) in [("parts_run", 1), ("parts_sweep", 2)] {
        let partial: serde_json::Value =
            serde_json::from_str(&read(&work.join(parts).join("shard-3/partial.json"))).unwrap();
        assert_eq!(
            partial["info"]["threads"], threads,
            "{parts}: CPUS_PER_TASK"
        );
    }
    same_bytes(
        &work.join("single_sweep"),
        &work.join("merged_sweep"),
        &["distributions.csv", "summary.csv", "comparison.csv"],
    );

    // A shard that fails (its output folder is taken by a file) stops the
    // job before the merge; rerun alone, it completes the same bytes.
    std::fs::create_dir(work.join("parts_failed")).unwrap();
    std::fs::write(work.join("parts_failed/shard-2"), "in the way").unwrap();
    let failed = cluster
        .command(recipe("submit.sh").to_str().unwrap())
        .env("SBATCH_WAIT", "1")
        .args(["4", "parts_failed", "merged_failed"])
        .args(run)
        .current_dir(work)
        .output()
        .unwrap();
    assert!(
        !failed.status.success(),
        "a failed shard fails the submission"
    );
    assert!(
        !work.join("merged_failed").exists(),
        "no merge after a failed shard"
    );
    assert!(
        job_logs(work).contains("parts_failed/shard-2 exists and is not a folder"),
        "the shard's log says why: {}",
        job_logs(work)
    );
    std::fs::remove_file(work.join("parts_failed/shard-2")).unwrap();
    ok(
        &cluster,
        cluster
            .command("sbatch")
            .args(["--wait", "--array=2"])
            .arg(recipe("shards.sbatch"))
            .args(["4", "parts_failed"])
            .args(run),
        work,
    );
    ok(
        &cluster,
        cluster
            .command("sbatch")
            .arg("--wait")
            .arg(recipe("merge.sbatch"))
            .args(["parts_failed", "merged_failed"]),
        work,
    );
    same_bytes(
        &work.join("single_run"),
        &work.join("merged_failed"),
        &["distributions.csv", "summary.csv"],
    );
    drop(cluster);
}
