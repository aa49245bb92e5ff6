//! The Kubernetes recipe (`docs/recipes/kubernetes/`) for real: its script
//! builds the static binary and the OCI image; the image is unpacked as a
//! container runtime would (its manifest's layers, in order) into a root
//! of its own, which holds the binary and the scenarios and no shell; the
//! Job's eight pods are played by `chroot` into that root with the Job's
//! own arguments (the index filled in, fewer battles), and their parts,
//! merged, are the host binary's single run byte for byte.
//!
//! The static build is a build of its own (`target/static`), as long as a
//! release build the first time, so the test runs only when asked:
//! `WARCRUNCH_IMAGE_TEST=1` (`.ci/run` sets it). Asked, it needs root
//! (chroot) and buildah (`.ci/run` installs it); without them it says so
//! loudly and passes, except under `CI=true`, where it fails.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::util::{is_root, read, repo, skipped, warcrunch};

fn recipe(name: &str) -> PathBuf {
    repo().join("docs/recipes/kubernetes").join(name)
}

/// The JSON of the blob `digest` (`sha256:…`) of an OCI layout.
fn blob(layout: &Path, digest: &str) -> PathBuf {
    let (algorithm, hex) = digest.split_once(':').unwrap();
    layout.join("blobs").join(algorithm).join(hex)
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&read(path)).unwrap()
}

/// The Job's container arguments, in order.
fn job_args(yaml: &str) -> Vec<String> {
    let after = yaml.split("args:\n").nth(1).expect("the Job gives args");
    after
        .lines()
        .map_while(|line| line.trim_start().strip_prefix("- "))
        .map(str::to_owned)
        .collect()
}

/// The value of `key: value` in the Job's YAML.
fn job_value<'a>(yaml: &'a str, key: &str) -> &'a str {
    yaml.lines()
        .find_map(|line| line.trim_start().strip_prefix(&format!("{key}: ")))
        .unwrap_or_else(|| panic!("the Job has no {key}"))
}

#[test]
fn the_kubernetes_image_runs_the_jobs_shards_to_the_single_runs_bytes() {
    let asked = std::env::var("WARCRUNCH_IMAGE_TEST").is_ok_and(|v| !v.is_empty() && v != "0");
    if !asked {
        eprintln!(
            "\n*** NOT ASKED *** image test: set WARCRUNCH_IMAGE_TEST=1 to build the static binary and the image (.ci/run does)\n"
        );
        return;
    }
    let has_buildah = Command::new("buildah")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_buildah || !is_root() {
        skipped(if has_buildah {
            "image test: chroot into the image needs root"
        } else {
            "image test: apt-get install buildah"
        });
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let image = out.path().join("image");
    let built = Command::new(recipe("build-image.sh"))
        .arg(&image)
        .current_dir(repo())
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "build-image.sh failed: {}{}",
        String::from_utf8_lossy(&built.stdout),
        String::from_utf8_lossy(&built.stderr)
    );
    let version = env!("CARGO_PKG_VERSION");
    let layout = image.join("oci");

    // The Job names the image the script tags.
    let yaml = read(&recipe("job.yaml"));
    assert!(
        job_value(&yaml, "image").ends_with(&format!("/warcrunch:{version}")),
        "job.yaml names {}, the script tags warcrunch:{version}",
        job_value(&yaml, "image")
    );
    assert!(!yaml.contains("sh -c"), "the image has no shell");

    // Unpacked as a runtime would: the manifest tagged with the version,
    // its layers in order.
    let index = json(&layout.join("index.json"));
    let manifest = index["manifests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["annotations"]["org.opencontainers.image.ref.name"] == version)
        .expect("the image is tagged with the version");
    let manifest = json(&blob(&layout, manifest["digest"].as_str().unwrap()));
    let config = json(&blob(
        &layout,
        manifest["config"]["digest"].as_str().unwrap(),
    ));
    assert_eq!(
        config["config"]["Entrypoint"],
        serde_json::json!(["/warcrunch"])
    );
    let root = out.path().join("root");
    std::fs::create_dir(&root).unwrap();
    for layer in manifest["layers"].as_array().unwrap() {
        let status = Command::new("tar")
            .arg("-xf")
            .arg(blob(&layout, layer["digest"].as_str().unwrap()))
            .arg("-C")
            .arg(&root)
            .status()
            .unwrap();
        assert!(status.success(), "a layer does not unpack");
    }
    let mut entries: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    entries.sort();
    assert_eq!(
        entries,
        ["scenarios", "warcrunch"],
        "only the binary and the scenarios"
    );
    for file in crate::util::bundled_scenarios() {
        let inside = root.join(file.strip_prefix(repo()).unwrap());
        assert_eq!(read(&inside), read(&file), "{}", inside.display());
    }

    // The Job's pods: its arguments with the index filled in, fewer battles.
    let shards: usize = job_value(&yaml, "completions").parse().unwrap();
    let args: Vec<String> = job_args(&yaml)
        .into_iter()
        .map(|a| {
            if a.starts_with("--trials=") {
                "--trials=80000".to_owned()
            } else {
                a
            }
        })
        .collect();
    std::fs::create_dir(root.join("results")).unwrap();
    // chroot lives in /usr/sbin, which a test's PATH may lack.
    let chroot = ["/usr/sbin/chroot", "/sbin/chroot"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .unwrap_or("chroot");
    for index in 0..shards {
        let pod_args: Vec<String> = args
            .iter()
            .map(|a| a.replace("$(JOB_COMPLETION_INDEX)", &index.to_string()))
            .collect();
        let pod = Command::new(chroot)
            .arg(&root)
            .arg("/warcrunch")
            .args(&pod_args)
            .env_clear()
            .output()
            .unwrap();
        assert!(
            pod.status.success(),
            "pod {index} failed: {}",
            String::from_utf8_lossy(&pod.stderr)
        );
    }
    let parts: Vec<PathBuf> = (0..shards)
        .map(|i| root.join(format!("results/shard-{i}")))
        .collect();
    warcrunch()
        .arg("merge")
        .args(&parts)
        .args(["--quiet", "--out"])
        .arg(out.path().join("merged"))
        .assert()
        .success();
    let scenario = args
        .iter()
        .find(|a| a.starts_with("/scenarios/"))
        .expect("the Job names a bundled scenario");
    warcrunch()
        .arg("run")
        .arg(repo().join(scenario.trim_start_matches('/')))
        .args(["--trials=80000", "--quiet", "--out"])
        .arg(out.path().join("single"))
        .assert()
        .success();
    for name in ["distributions.csv", "summary.csv"] {
        assert!(
            std::fs::read(out.path().join("merged").join(name)).unwrap()
                == std::fs::read(out.path().join("single").join(name)).unwrap(),
            "{name}: the image's shards merged differ from the host's run"
        );
    }
}
