//! Why a submission is refused before anything in it is verified (exit 2): one typed kind per
//! rule of `specs/intake.md`, with the figures that decided it, so that a caller (and a test)
//! holds the kind, and the binary alone turns it into words.

use std::fmt;

/// A refusal: which input, which member or file of it, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The input as given (`submission.zip`), or the archive or repository inside it
    /// (`submission.zip/science.bundle`).
    pub input: String,
    /// The member or file at fault, as the archive spells it or as shown in the report;
    /// `None` when the input as a whole is.
    pub member: Option<String>,
    /// Whether `member` is a file of a received tree or repository (an indirection, a link)
    /// rather than a member of an archive.
    pub file: bool,
    /// Why.
    pub kind: RefusalKind,
}

impl Refusal {
    /// A refusal of the whole of `input`.
    #[must_use]
    pub fn whole(input: impl Into<String>, kind: RefusalKind) -> Self {
        Refusal { input: input.into(), member: None, file: false, kind }
    }

    /// A refusal of `member` of `input`.
    #[must_use]
    pub fn member(input: impl Into<String>, member: impl Into<String>, kind: RefusalKind) -> Self {
        Refusal { input: input.into(), member: Some(member.into()), file: false, kind }
    }

    /// A refusal of the file `file` of a tree or repository received as `input`.
    #[must_use]
    pub fn file(input: impl Into<String>, file: impl Into<String>, kind: RefusalKind) -> Self {
        Refusal { input: input.into(), member: Some(file.into()), file: true, kind }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.member, self.file) {
            (Some(file), true) => write!(f, "{}: {file}: {}", self.input, self.kind),
            (Some(m), false) => write!(f, "{}: member {m:?}: {}", self.input, self.kind),
            (None, _) => write!(f, "{}: {}", self.input, self.kind),
        }
    }
}

impl std::error::Error for Refusal {}

/// Which cap of [`crate::intake::Limits`] a submission reached, and the flag that raises it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cap {
    /// Members and files written, all archives together (`--max-entries`).
    Entries,
    /// Bytes written, all archives and bundles together (`--max-unpacked-bytes`).
    Bytes,
    /// Bytes written per byte received (`--max-expansion-ratio`).
    Ratio,
    /// Archives inside archives (`--max-nesting`).
    Nesting,
    /// Directory levels below an input (`--max-depth`).
    Depth,
}

impl Cap {
    /// The `verify` flag that raises it.
    #[must_use]
    pub fn flag(self) -> &'static str {
        match self {
            Cap::Entries => "--max-entries",
            Cap::Bytes => "--max-unpacked-bytes",
            Cap::Ratio => "--max-expansion-ratio",
            Cap::Nesting => "--max-nesting",
            Cap::Depth => "--max-depth",
        }
    }
}

/// Why an input, member or repository is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RefusalKind {
    /// The input cannot be read.
    #[error("cannot be read: {0}")]
    Unreadable(String),
    /// The input is none of the kinds a submission arrives in.
    #[error("neither a directory, an archive (.zip, .tar, .tar.gz, .tgz) nor a git bundle")]
    UnknownKind,
    /// A member name that is not UTF-8.
    #[error("a name that is not UTF-8")]
    NameNotUtf8,
    /// A member name holding a NUL byte.
    #[error("a name holding a NUL byte")]
    NameWithNul,
    /// An absolute member name or a drive letter.
    #[error("an absolute path: unpacking it would write outside the archive's tree")]
    AbsoluteName,
    /// A backslash in a member name.
    #[error("a name holding a backslash (a Windows path separator, read as `..` or a drive by some tools)")]
    Backslash,
    /// A `..` component.
    #[error("a `..` component: unpacking it would write outside the archive's tree")]
    ParentComponent,
    /// A file member with an empty path.
    #[error("names no file (an empty path)")]
    EmptyName,
    /// A name seen before.
    #[error("appears twice in the archive (a duplicate name)")]
    Duplicate,
    /// A name equal to an earlier one but for case.
    #[error(
        "differs from the member {earlier:?} only in case; a case-insensitive file system would unpack them into one file"
    )]
    CaseCollision {
        /// The earlier member.
        earlier: String,
    },
    /// A symlink whose target is empty, holds a NUL or is not UTF-8.
    #[error("a symlink with an empty, NUL-bearing or non-UTF-8 target")]
    BadLinkTarget,
    /// A symlink to an absolute path.
    #[error("a symlink to the absolute path {target:?}, outside the archive")]
    AbsoluteLink {
        /// The link's target.
        target: String,
    },
    /// A symlink climbing above the tree.
    #[error("a symlink to {target:?}, which leaves the archive's tree")]
    LinkLeaves {
        /// The link's target.
        target: String,
    },
    /// A symlink resolving outside the tree through another link, once every member is written.
    #[error("a symlink that resolves outside the archive's tree (through another link)")]
    LinkChainLeaves,
    /// A member below a symlink written before it.
    #[error("lies below the symlink {link:?}, so writing it would follow the link")]
    BelowSymlink {
        /// The symlink.
        link: String,
    },
    /// A hard link to anything but a regular file unpacked before it.
    #[error("a hard link to {target:?}, which is not a file unpacked before it from this archive")]
    HardLink {
        /// The link's target.
        target: String,
    },
    /// A device, FIFO, socket or other special entry.
    #[error("{what}")]
    SpecialFile {
        /// What it is (`a character device file`).
        what: String,
    },
    /// A cap reached, with the limit in force.
    #[error("{}", cap_words(*.cap, *.limit))]
    Limit {
        /// Which cap.
        cap: Cap,
        /// Its value.
        limit: u64,
    },
    /// A zip member declaring more than the budget leaves (refused before a byte is written).
    #[error(
        "declares {declared} bytes from {compressed} compressed, more than the {room} bytes the submission may still \
         expand to: a zip bomb"
    )]
    ZipBomb {
        /// The size the member declares.
        declared: u64,
        /// Its compressed size.
        compressed: u64,
        /// What the budget still allowed.
        room: u64,
    },
    /// A gzip stream producing more than its ratio allows.
    #[error("the gzip stream expands more than {ratio} times its compressed size: a gzip bomb")]
    GzipBomb {
        /// The ratio in force.
        ratio: u64,
    },
    /// A truncated or malformed archive.
    #[error("the archive is truncated or malformed: {0}")]
    Malformed(String),
    /// Writing the unpacked tree failed.
    #[error("{what}: {detail}")]
    Write {
        /// What was being written.
        what: &'static str,
        /// The system's words.
        detail: String,
    },
    /// A git indirection (commondir, alternates, a `.git` file, a symlink, an include, a
    /// linked work tree, `core.worktree`) that leads outside the received tree.
    #[error(
        "{what} leads outside the submission, to {target}; nothing outside a submission is read: ask the authors for \
         the repository as a bundle (`git bundle create NAME.bundle --all` in its clone)"
    )]
    OutsideLink {
        /// The indirection, in words.
        what: &'static str,
        /// Where it leads.
        target: String,
    },
    /// Grafts or a replace ref naming an object the repository lacks.
    #[error(
        "{by} names the object {id}, which the repository does not hold: git would read a history only another \
         machine could supply"
    )]
    MissingSubstitute {
        /// The graft line or replace ref.
        by: String,
        /// The object.
        id: String,
    },
    /// A git bundle that git could not read.
    #[error("git could not read the bundle: {0}")]
    Bundle(String),
    /// An incremental bundle (it needs commits it does not hold).
    #[error(
        "an incremental bundle (it needs commits it does not hold): git says {said}; in the repository's clone run \
         `git bundle create {} --all` to bundle its whole history",
        bundle_word(.stem)
    )]
    IncrementalBundle {
        /// What git said.
        said: String,
        /// The bundle's file stem, for the command.
        stem: String,
    },
    /// The git command, needed for bundles, could not be run.
    #[error("a git bundle is read with the git command, which could not be run: {0}")]
    NoGit(String),
    /// A repository that cannot prove its records from its own objects.
    #[error("{}", incomplete_words(*.why, .stem))]
    Incomplete {
        /// What it lacks.
        why: Incomplete,
        /// The repository's name, for the bundle command.
        stem: String,
    },
    /// Files, but no git repository anywhere; the work trees found, one bundle command each.
    #[error(
        "holds files but no git repository (a working-tree archive without `.git`, such as a release download), so it \
         cannot be verified from git objects; ask the authors for a bundle of each repository with its whole history: \
         {}",
        .0.iter().map(|t| format!("in the clone of {t}: `git bundle create {} --all`", bundle_word(t))).collect::<Vec<_>>().join("; ")
    )]
    NoHistory(Vec<String>),
    /// The run was cancelled.
    #[error("cancelled")]
    Cancelled,
}

fn cap_words(cap: Cap, limit: u64) -> String {
    let what = match cap {
        Cap::Entries => format!("the submission holds more than {limit} members and files"),
        Cap::Bytes => format!("the submission unpacks to more than {limit} bytes"),
        Cap::Ratio => {
            format!("the submission expands more than {limit} times the bytes received (after the first 64 MiB)")
        }
        Cap::Nesting => format!("an archive nested more than {limit} deep inside archives"),
        Cap::Depth => format!("directories nested more than {limit} levels deep"),
    };
    format!("{what}; a journal that accepts it raises the limit with {} (specs/intake.md, \"Limits\")", cap.flag())
}

fn incomplete_words(why: Incomplete, stem: &str) -> String {
    let fix = match why {
        Incomplete::Shallow => "run `git fetch --unshallow` in the authors' clone, then",
        Incomplete::Partial => "run `git fetch --refetch --no-filter` in the authors' clone, then",
        Incomplete::GitFile => "in the repository the `.git` file names,",
    };
    format!(
        "{}, so its records cannot be verified from git objects; {fix} `git bundle create {} --all` and submit \
         the bundle",
        why.as_str(),
        bundle_word(stem)
    )
}

/// Why a repository cannot prove its records from its own objects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Incomplete {
    /// A shallow clone: its history stops at a boundary.
    Shallow,
    /// A partial clone: objects were left on a promisor remote.
    Partial,
    /// A linked work tree or submodule: `.git` is a file naming a directory elsewhere.
    GitFile,
}

impl Incomplete {
    /// In words.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Incomplete::Shallow => "a shallow clone (its history stops at a boundary)",
            Incomplete::Partial => "a partial clone (objects were left on the remote it was cloned from)",
            Incomplete::GitFile => "a linked work tree or submodule (`.git` is a file naming a directory elsewhere)",
        }
    }
}

/// `NAME.bundle` as one shell word: a name is the authors', and a suggested command is pasted
/// into a shell, so anything but letters, digits and `._-` is single-quoted, and a leading `-`
/// is kept from reading as an option.
#[must_use]
pub fn bundle_word(stem: &str) -> String {
    let word = format!("{stem}.bundle");
    let plain = word.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c));
    match (plain, word.starts_with('-')) {
        (true, false) => word,
        (true, true) => format!("./{word}"),
        (false, dash) => format!("'{}{}'", if dash { "./" } else { "" }, word.replace('\'', "'\\''")),
    }
}
