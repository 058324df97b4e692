//! The memory budget of the submission unpacker (issue 24): for hostile archives — many tiny
//! members (tar and zip), long member names, a gzip bomb and a zip bomb — peak heap stays
//! within the parsers' budget, 64 bytes per input byte plus 1 MiB, at a quarter of the size
//! and at the size (2 MiB), so growth faster than linear fails too. The archives are unpacked
//! through the fuzz property (`crossverify::fuzzing::archive_unpack`: every format, twice,
//! into a temporary directory) with its caps; a bomb's heap must not depend on what it would
//! expand to. The figures are appended to `target/test-artifacts/memory-budget-archives.md`.

use std::fmt::Write as _;
use std::io::Write as _;

use peakmem_alloc::PeakMemAllocTrait as _;

use crate::HEAP as GLOBAL;

const PER_BYTE: usize = 64;
const FIXED: usize = 1 << 20;
const SIZE: usize = 2 << 20;

/// A tar of `n` bytes or so: as many one-byte members with names of `name_len` as fit.
fn tar_of(n: usize, name_len: usize) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    let mut i = 0usize;
    while (i + 2) * 1024 < n {
        let mut h = tar::Header::new_gnu();
        h.set_size(1);
        h.set_mode(0o644);
        let name = format!("{i:0>width$}", width = name_len);
        b.append_data(&mut h, name, &[b'x'][..]).expect("member");
        i += 1;
    }
    b.into_inner().expect("tar")
}

/// A zip of `n` bytes or so of one-byte members.
fn zip_of(n: usize) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    // A stored one-byte member with a name of up to seven digits takes about 90 bytes: its
    // local header, its central-directory entry and the byte.
    for i in 0..n / 90 {
        w.start_file(format!("{i}"), opts).expect("member");
        w.write_all(b"x").expect("write");
    }
    w.finish().expect("zip").into_inner()
}

/// A gzip-compressed tar whose one member is 200 × `n` zeros (about `n` / 5 compressed).
fn gzip_bomb(n: usize) -> Vec<u8> {
    let zeros = n * 200;
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let mut b = tar::Builder::new(gz);
    let mut h = tar::Header::new_gnu();
    h.set_size(zeros as u64);
    h.set_mode(0o644);
    b.append_data(&mut h, "zeros", std::io::Read::take(std::io::repeat(0), zeros as u64)).expect("member");
    b.into_inner().expect("tar").finish().expect("gzip")
}

/// A zip whose one member is 200 × `n` zeros.
fn zip_bomb(n: usize) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default().large_file(true);
    w.start_file("zeros", opts).expect("member");
    std::io::copy(&mut std::io::Read::take(std::io::repeat(0), (n * 200) as u64), &mut w).expect("write");
    w.finish().expect("zip").into_inner()
}

type Shape = (&'static str, fn(usize) -> Vec<u8>);

#[test]
fn the_unpacker_stays_within_its_memory_budget() {
    let _alone = crate::alone();
    let shapes: [Shape; 5] = [
        ("tar, many one-byte members", |n| tar_of(n, 8)),
        ("tar, long names", |n| tar_of(n, 90)),
        ("zip, many one-byte members", zip_of),
        ("gzip bomb (200 × the size in zeros)", gzip_bomb),
        ("zip bomb (200 × the size in zeros)", zip_bomb),
    ];
    let mut table = String::from(
        "# Memory budget of the submission unpacker\n\n| archive | bytes at a quarter | heap per byte | bytes at the size | heap per byte |\n|---|---|---|---|---|\n",
    );
    let mut over = Vec::new();
    for (name, make) in shapes {
        let (small, large) = (make(SIZE / 4), make(SIZE));
        let peak = |data: &[u8]| {
            GLOBAL.reset_peak_memory();
            crossverify::fuzzing::archive_unpack(data);
            GLOBAL.get_peak_memory()
        };
        let (got_small, got) = (peak(&small), peak(&large));
        if got > PER_BYTE * large.len() + FIXED {
            over.push(format!("{name}: {got} bytes of heap for {} input bytes", large.len()));
        }
        if got > 4 * got_small + 2 * FIXED {
            over.push(format!(
                "{name}: heap grows faster than the input ({got_small} at {}, {got} at {})",
                small.len(),
                large.len()
            ));
        }
        let per = |h: usize, n: usize| h as f64 / n as f64;
        let _ = writeln!(
            table,
            "| {name} | {} | {:.2} | {} | {:.2} |",
            small.len(),
            per(got_small, small.len()),
            large.len(),
            per(got, large.len())
        );
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/test-artifacts");
    std::fs::create_dir_all(&dir).expect("create target/test-artifacts");
    std::fs::write(dir.join("memory-budget-archives.md"), &table).expect("write");
    assert!(over.is_empty(), "over the memory budget:\n{}\n\n{table}", over.join("\n"));
}
