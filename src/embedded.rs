//! The files compiled into the binary, found by `build.rs` walking their
//! folders: the bundled scenarios, the built-in tables and the systems'
//! starters. Adding such a file adds it here; no list is kept by hand.

include!(concat!(env!("OUT_DIR"), "/embedded.rs"));
