//! Why a submission could not be verified (exit 2): a leaf the other files take it from.

/// Why a submission could not be verified (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The intake refused it: an input, an archive member, a cap, an indirection, a clone.
    #[error(transparent)]
    Refused(#[from] crate::intake::Refusal),
    /// Repositories, but no record any protocol recognises.
    #[error(
        "{inputs}: holds the repositories {} but no record crossverify recognises (a CrossAudit ledger or records, \
         Proof-or-Stop evidence, a CrossExam transcript){}",
        .repositories.join(", "),
        beside_words(.beside)
    )]
    NoRecords {
        /// The inputs as given.
        inputs: String,
        /// The repositories found, by name.
        repositories: Vec<String>,
        /// Directories beside them holding files but no `.git`, by name.
        beside: Vec<String>,
    },
}

/// The working trees without `.git` beside the repositories, each with its bundle command: an
/// audit repository sent as a folder is the usual reason a paired ledger finds no records.
fn beside_words(beside: &[String]) -> String {
    if beside.is_empty() {
        return String::new();
    }
    let each: Vec<String> = beside
        .iter()
        .map(|b| {
            let stem = b.rsplit('/').next().unwrap_or(b);
            format!("in the clone of {stem}: `git bundle create {} --all`", crate::intake::bundle_word(stem))
        })
        .collect();
    format!(
        "; beside the repositories, {} {} files but no `.git` (a working tree without its history, such as an audit repository \
         copied as a folder), so {} records cannot be verified from git objects; ask the authors for a bundle \
         with its whole history: {}",
        beside.join(", "),
        if beside.len() == 1 { "holds" } else { "hold" },
        if beside.len() == 1 { "its" } else { "their" },
        each.join("; ")
    )
}
