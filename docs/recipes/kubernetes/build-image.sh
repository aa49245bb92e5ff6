#!/bin/bash
# Builds a static warcrunch and an OCI image holding only that binary and
# the bundled scenarios: no shell, no package manager. Run from the
# repository; needs cargo and buildah (Debian's package), no registry.
#   docs/recipes/kubernetes/build-image.sh [OUT]      (OUT: target/image)
# Writes OUT/warcrunch (the static binary) and OUT/oci, an OCI layout
# tagged with the version. Push it to your registry, e.g.
#   buildah push --root OUT/storage --runroot OUT/run --storage-driver vfs \
#     warcrunch:VERSION docker://registry.example.org/warcrunch:VERSION
set -euo pipefail
out=${1:-target/image}
version=$(cargo pkgid | sed 's/.*[#@]//')
RUSTFLAGS="-C target-feature=+crt-static" cargo build --release --locked --quiet \
  --target x86_64-unknown-linux-gnu --target-dir target/static --bin warcrunch
mkdir -p "$out"
cp target/static/x86_64-unknown-linux-gnu/release/warcrunch "$out/warcrunch"
storage=(--root "$out/storage" --runroot "$out/run" --storage-driver vfs)
container=$(buildah "${storage[@]}" from scratch)
trap 'buildah "${storage[@]}" rm "$container" >/dev/null' EXIT
buildah "${storage[@]}" copy --quiet "$container" "$out/warcrunch" /warcrunch
buildah "${storage[@]}" copy --quiet "$container" scenarios /scenarios
buildah "${storage[@]}" config --entrypoint '["/warcrunch"]' --workingdir / \
  --label org.opencontainers.image.version="$version" "$container"
buildah "${storage[@]}" commit --quiet "$container" "warcrunch:$version" >/dev/null
rm -rf "$out/oci"
buildah "${storage[@]}" push --quiet "warcrunch:$version" "oci:$out/oci:$version"
echo "$out/oci:$version"
