//! Integration tests, one binary (as ripgrep does), one module by concern:
//! every `.rs` file in this folder is one of its modules, found when the
//! binary is built (`automod`), so a new test file needs no line here.

automod::dir!("tests");
