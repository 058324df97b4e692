//! The pinned identity every fixture commit and signature uses, so that ids are stable. A leaf:
//! both the repository builder and the signer read it.

/// Default identity of fixture commits.
pub const NAME: &str = "Lab Scientist";
/// Default email of fixture commits.
pub const EMAIL: &str = "lab@example.invalid";
