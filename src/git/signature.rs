//! The signature of a commit as git verifies it: the `gpgsig` header's armored block and the
//! exact bytes it signs (the commit object without that header), read from the object
//! database, never from a working tree or the user's configuration.

use gix::ObjectId;
use gix::bstr::ByteSlice;

use super::error::Result;
use super::repo::Repo;

/// A commit's signature and what it covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitSignature {
    /// The commit.
    pub id: ObjectId,
    /// The armored signature block, header continuation unfolded, ending in a newline as git
    /// hands it to `ssh-keygen`; `None` when the commit carries no `gpgsig` header.
    pub signature: Option<Vec<u8>>,
    /// The bytes the signature covers: the raw commit object without the signature header.
    pub payload: Vec<u8>,
    /// Committer email: the principal `crossverify` requires the signing key to be allowed for.
    pub committer_email: String,
    /// Committer time (seconds since the epoch): git evaluates `valid-after`/`valid-before`
    /// at this time.
    pub committer_time: i64,
}

impl Repo {
    /// Reads the signature header of commit `id` and the bytes it signs.
    ///
    /// # Errors
    /// Missing or corrupt commit.
    pub fn commit_signature(&self, id: ObjectId) -> Result<CommitSignature> {
        let data = self.object(id, gix::object::Kind::Commit, "commit")?;
        let kind = self.inner.object_hash();
        let found = gix::objs::CommitRefIter::signature(&data, kind).map_err(|e| self.corrupt(id, "commit", e))?;
        let (signature, payload) = match found {
            Some((sig, signed)) => {
                let mut sig = sig.as_bytes().to_vec();
                if !sig.ends_with(b"\n") {
                    sig.push(b'\n');
                }
                (Some(sig), signed.to_bstring().into())
            }
            None => (None, data.clone()),
        };
        let commit = gix::objs::CommitRef::from_bytes(&data, kind).map_err(|e| self.corrupt(id, "commit", e))?;
        let committer = commit.committer().map_err(|e| self.corrupt(id, "commit", e))?;
        let time = committer.time().map_err(|e| self.corrupt(id, "commit", e))?;
        Ok(CommitSignature {
            id,
            signature,
            payload,
            committer_email: committer.email.to_str_lossy().into_owned(),
            committer_time: time.seconds,
        })
    }
}
