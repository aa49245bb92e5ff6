//! The files compiled into the binary, found by `build.rs` walking their
//! folders: the bundled scenarios and the built-in tables. Adding such a
//! file adds it here; no list is kept by hand.

include!(concat!(env!("OUT_DIR"), "/embedded.rs"));
