//! The caps a submission is received within, and the one budget every archive, nested archive
//! and bundle of it spends: what is written is counted as it is written (`specs/intake.md`,
//! "Limits").

use super::refusal::{Cap, RefusalKind};

/// The caps a submission is received within. They bound what is *written*, counted as it is
/// written, across every archive, nested archive and bundle of one submission: a declared size
/// is only ever a reason to stop early (`specs/intake.md`, "Limits").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Members and files written, all archives and bundles together.
    pub max_entries: u64,
    /// Bytes written, all archives and bundles together.
    pub max_bytes: u64,
    /// Bytes written per byte received (the inputs' own bytes), after `ratio_slack`; also the
    /// most a gzip stream may produce per compressed byte.
    pub max_ratio: u64,
    /// Bytes written before the ratio applies (small archives compress well).
    pub ratio_slack: u64,
    /// Archives inside archives: an input is level 0, an archive or bundle found in it level 1.
    pub max_nesting: u64,
    /// Directory levels searched below each received tree.
    pub max_depth: u64,
}

impl Default for Limits {
    /// 200,000 members, 16 GiB, 200 bytes written per byte received after the first 64 MiB, archives
    /// three deep, directories 64 deep: a repository's objects are compressed already, so an
    /// honest archive of clones expands a few times at most, and deflate's own ceiling is about
    /// 1,032.
    fn default() -> Self {
        Limits {
            max_entries: 200_000,
            max_bytes: 16 << 30,
            max_ratio: 200,
            ratio_slack: 64 << 20,
            max_nesting: 3,
            max_depth: 64,
        }
    }
}

/// What a submission has written so far against its [`Limits`], shared by every archive and
/// bundle of it: an archive inside an archive, a hard link copied, a member overlapping
/// another all spend the same budget.
#[derive(Debug, Clone)]
pub struct Budget {
    pub(super) limits: Limits,
    pub(super) entries: u64,
    pub(super) written: u64,
    received: u64,
}

impl Budget {
    /// A budget with nothing spent.
    #[must_use]
    pub fn new(limits: Limits) -> Self {
        Budget { limits, entries: 0, written: 0, received: 0 }
    }

    /// The limits in force.
    #[must_use]
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Records `bytes` received: an input's own bytes, which the ratio is measured against.
    pub fn receive(&mut self, bytes: u64) {
        self.received = self.received.saturating_add(bytes);
    }

    /// Members and files written so far.
    #[must_use]
    pub fn entries(&self) -> u64 {
        self.entries
    }

    /// Bytes written so far.
    #[must_use]
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Bytes that may still be written, and the cap that says so.
    pub(super) fn room(&self) -> (u64, Cap) {
        let by_size = self.limits.max_bytes.saturating_sub(self.written);
        let by_ratio = self
            .received
            .saturating_mul(self.limits.max_ratio)
            .saturating_add(self.limits.ratio_slack)
            .saturating_sub(self.written);
        if by_ratio < by_size { (by_ratio, Cap::Ratio) } else { (by_size, Cap::Bytes) }
    }

    pub(super) fn over(&self, cap: Cap) -> RefusalKind {
        let limit = match cap {
            Cap::Entries => self.limits.max_entries,
            Cap::Bytes => self.limits.max_bytes,
            Cap::Ratio => self.limits.max_ratio,
            Cap::Nesting => self.limits.max_nesting,
            Cap::Depth => self.limits.max_depth,
        };
        RefusalKind::Limit { cap, limit }
    }

    /// Counts one member or file written.
    pub(super) fn entry(&mut self) -> Result<(), RefusalKind> {
        self.entries += 1;
        if self.entries > self.limits.max_entries { Err(self.over(Cap::Entries)) } else { Ok(()) }
    }

    /// Counts what something other than the unpacker wrote (a bundle cloned by git): `entries`
    /// files holding `bytes`.
    ///
    /// # Errors
    /// A cap is exceeded.
    pub fn charge(&mut self, entries: u64, bytes: u64) -> Result<(), RefusalKind> {
        for _ in 0..entries.min(self.limits.max_entries.saturating_add(1)) {
            self.entry()?;
        }
        let (room, cap) = self.room();
        if bytes > room {
            return Err(self.over(cap));
        }
        self.written += bytes;
        Ok(())
    }

    /// The refusal for a nesting level past the limit, if `level` is.
    ///
    /// # Errors
    /// `level` is deeper than the limit.
    pub fn nest(&self, level: u64) -> Result<(), RefusalKind> {
        if level > self.limits.max_nesting { Err(self.over(Cap::Nesting)) } else { Ok(()) }
    }

    /// The refusal for directories nested past the limit.
    #[must_use]
    pub fn too_deep(&self) -> RefusalKind {
        self.over(Cap::Depth)
    }
}
