//! Reading a file named on the command line or found beside a record, within a size limit.

use std::io::Read as _;
use std::path::Path;

/// Why a file was not read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// It could not be opened or read.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// It holds more than the limit, in bytes.
    #[error("more than {0} bytes")]
    TooLarge(usize),
}

/// The bytes of the file at `path`, or why not: more than `max` bytes is refused after reading
/// at most `max + 1` of them, so a huge, growing or endless file (a FIFO, `/dev/zero`) costs
/// `max` bytes of memory, never its size. The error does not name the file; callers do.
///
/// # Errors
/// The file cannot be opened or read, or holds more than `max` bytes.
pub fn read_capped(path: &Path, max: usize) -> Result<Vec<u8>, ReadError> {
    let file = std::fs::File::open(path)?;
    // Sized from the open file, at most the limit: a record read whole (a 64 MiB bus) is
    // then one allocation, not a doubling series of copies. What is read still decides.
    let hint = file.metadata().map_or(0, |m| usize::try_from(m.len()).unwrap_or(usize::MAX).min(max));
    let mut bytes = Vec::with_capacity(hint);
    file.take((max as u64).saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() > max {
        return Err(ReadError::TooLarge(max));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::read_capped;

    #[test]
    fn a_file_at_the_limit_is_read_and_one_byte_more_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("f");
        std::fs::write(&p, [7u8; 10]).expect("write");
        assert_eq!(read_capped(&p, 10).expect("at the limit"), [7u8; 10]);
        assert_eq!(read_capped(&p, 9).expect_err("over the limit").to_string(), "more than 9 bytes");
        assert!(read_capped(&dir.path().join("missing"), 9).is_err());
    }

    #[test]
    fn no_limit_means_no_overflow() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("f");
        std::fs::write(&p, b"x").expect("write");
        assert_eq!(read_capped(&p, usize::MAX).expect("read"), b"x");
    }

    #[test]
    fn an_endless_file_costs_the_limit_not_its_size() {
        let e = read_capped(std::path::Path::new("/dev/zero"), 1 << 10).expect_err("endless");
        assert!(matches!(e, super::ReadError::TooLarge(1024)), "{e}");
    }
}
