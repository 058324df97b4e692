//! The command line of issue 24: `verify SUBMISSION...` (archives, bundles, a folder of
//! repositories) with its certificate and signed verification summary, and `batch FOLDER`
//! over a queue of submissions. The private work directory is made and removed here.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use crossverify::progress::Ctx;
use crossverify::report::Report;
use crossverify::submission;

/// The submission options of `verify`.
#[derive(clap::Args, Debug, Default)]
pub(crate) struct Args {
    /// Treat PATH as a submission even when it is one protocol's records (a single repository).
    #[arg(long)]
    pub(crate) submission: bool,
    /// The verification time of a submission (RFC 3339, UTC: 2026-12-02T18:00:00Z); default
    /// SOURCE_DATE_EPOCH, else now. It is recorded, so `attest --replay` gives the same bytes.
    #[arg(long, value_name = "TIME", value_parser = parse_time)]
    pub(crate) verified_at: Option<String>,
    /// Write the submission's verification certificate (one self-contained HTML page) to PATH.
    #[arg(long, value_name = "PATH")]
    pub(crate) certificate: Option<PathBuf>,
    /// Write the signed SLSA verification summary of the certificate to PATH (needs --sign-report).
    #[arg(long, value_name = "PATH", requires = "sign_report")]
    pub(crate) vsa: Option<PathBuf>,
    /// Accept trust stores the submission itself holds (the authors' own keys) as trust anchors;
    /// without it, or --trust-store, records verified only against them are inconclusive (exit 3).
    #[arg(long)]
    pub(crate) accept_self_declared_keys: bool,
    #[command(flatten)]
    pub(crate) limits: LimitArgs,
}

/// The caps a submission is received within (`specs/intake.md`, "Limits"): a journal raises
/// one when an honest submission reaches it.
#[derive(clap::Args, Debug, Default, Clone, Copy)]
pub(crate) struct LimitArgs {
    /// Members and files written, all archives and bundles together [default: 200000].
    #[arg(long, value_name = "N")]
    pub(crate) max_entries: Option<u64>,
    /// Bytes written, all archives and bundles together [default: 17179869184, 16 GiB].
    #[arg(long, value_name = "BYTES")]
    pub(crate) max_unpacked_bytes: Option<u64>,
    /// Bytes written per byte received, after the first 64 MiB [default: 200].
    #[arg(long, value_name = "RATIO")]
    pub(crate) max_expansion_ratio: Option<u64>,
    /// Archives inside archives [default: 3].
    #[arg(long, value_name = "N")]
    pub(crate) max_nesting: Option<u64>,
    /// Directory levels searched below each received tree [default: 64].
    #[arg(long, value_name = "N")]
    pub(crate) max_depth: Option<u64>,
}

impl LimitArgs {
    /// The limits, each the flag's value or the default.
    pub(crate) fn limits(self) -> crossverify::intake::Limits {
        let d = crossverify::intake::Limits::default();
        crossverify::intake::Limits {
            max_entries: self.max_entries.unwrap_or(d.max_entries),
            max_bytes: self.max_unpacked_bytes.unwrap_or(d.max_bytes),
            max_ratio: self.max_expansion_ratio.unwrap_or(d.max_ratio),
            ratio_slack: d.ratio_slack,
            max_nesting: self.max_nesting.unwrap_or(d.max_nesting),
            max_depth: self.max_depth.unwrap_or(d.max_depth),
        }
    }
}

/// Options that say where output goes, never recorded for a replay.
const OUTPUT_OPTIONS: [&str; 2] = ["--certificate", "--vsa"];

/// What is written once the report is final (described, signed).
pub(crate) struct After {
    certificate: Option<PathBuf>,
    vsa: Option<PathBuf>,
    verified_at: String,
}

/// `YYYY-MM-DDTHH:MM:SSZ`.
fn parse_time(s: &str) -> Result<String, String> {
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    let shape = b.len() == 20
        && digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && b[10] == b'T'
        && digits(11..13)
        && b[13] == b':'
        && digits(14..16)
        && b[16] == b':'
        && digits(17..19)
        && b[19] == b'Z';
    if shape { Ok(s.to_owned()) } else { Err(format!("`{s}` is not a UTC time like 2026-12-02T18:00:00Z")) }
}

/// Seconds since the epoch as RFC 3339 UTC.
fn rfc3339(secs: u64) -> String {
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// The verification time: the flag, else `SOURCE_DATE_EPOCH`, else the clock.
fn verified_at(args: &Args) -> anyhow::Result<String> {
    if let Some(t) = &args.verified_at {
        return Ok(t.clone());
    }
    if let Some(v) = std::env::var_os("SOURCE_DATE_EPOCH").filter(|v| !v.is_empty()) {
        let secs: u64 =
            v.to_str().and_then(|s| s.parse().ok()).context("SOURCE_DATE_EPOCH is not a number of seconds")?;
        return Ok(rfc3339(secs));
    }
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    Ok(rfc3339(now))
}

/// Whether `verify PATHS` is a submission.
pub(crate) fn wanted(paths: &[PathBuf], args: &Args) -> bool {
    args.submission || args.certificate.is_some() || args.vsa.is_some() || submission::is_submission(paths)
}

/// `crossverify verify SUBMISSION...`: the report, and what to write once it is final.
pub(crate) fn verify(
    paths: &[PathBuf],
    trust_store: Option<&Path>,
    args: &Args,
    quiet: bool,
    ctx: Ctx<'_>,
) -> anyhow::Result<(Report, After)> {
    let at = verified_at(args)?;
    let report = run(paths, trust_store, args, &at, ctx)?;
    if !quiet {
        let n = report.sections.get("records").and_then(serde_json::Value::as_array).map_or(0, Vec::len);
        let _ = writeln!(std::io::stderr(), "crossverify: submission: {n} record(s) found and verified in one report");
    }
    Ok((report, After { certificate: args.certificate.clone(), vsa: args.vsa.clone(), verified_at: at }))
}

fn run(paths: &[PathBuf], trust_store: Option<&Path>, args: &Args, at: &str, ctx: Ctx<'_>) -> anyhow::Result<Report> {
    let work = tempfile::Builder::new()
        .prefix("crossverify-submission-")
        .tempdir()
        .context("making a private work directory")?;
    let opts = submission::Options {
        inputs: paths,
        work: work.path(),
        limits: args.limits.limits(),
        trust_store,
        accept_self_declared: args.accept_self_declared_keys,
        verified_at: at,
    };
    let report = submission::verify(&opts, ctx);
    work.close().context("removing the private work directory")?;
    Ok(report?)
}

impl After {
    /// The recorded invocation of a submission run: without the options that say where its
    /// certificate and summary go, and with the verification time it used.
    pub(crate) fn recorded(&self, invocation: Vec<String>) -> Vec<String> {
        let mut out = Vec::new();
        let mut skip = false;
        for a in invocation {
            if std::mem::take(&mut skip) {
                continue;
            }
            if OUTPUT_OPTIONS.contains(&a.as_str()) {
                skip = true;
                continue;
            }
            if OUTPUT_OPTIONS.iter().any(|o| a.strip_prefix(o).is_some_and(|r| r.starts_with('='))) {
                continue;
            }
            out.push(a);
        }
        if !out.iter().any(|a| a == "--verified-at" || a.starts_with("--verified-at=")) {
            out.extend(["--verified-at".to_owned(), self.verified_at.clone()]);
        }
        out
    }

    /// Writes the certificate and the signed summary of the final report.
    pub(crate) fn write(&self, report: &Report, key: Option<&Path>) -> anyhow::Result<()> {
        if let Some(p) = &self.certificate {
            std::fs::write(p, submission::certificate::render(report))
                .with_context(|| format!("writing the certificate to {}", p.display()))?;
        }
        if let (Some(p), Some(k)) = (&self.vsa, key) {
            // The summary names the certificate as attest will look for it, beside the summary.
            let name = self.certificate.as_deref().and_then(Path::file_name).map(|n| n.to_string_lossy().into_owned());
            submission::vsa::write(report, k, p, name.as_deref().unwrap_or(submission::vsa::CERTIFICATE))?;
        }
        Ok(())
    }
}

/// What the journal gives a queue run beside the folder: the same trust anchors, flag and
/// limits as `verify`, applied to every submission and stamped on every line.
#[derive(clap::Args, Debug, Default, Clone)]
pub(crate) struct QueueArgs {
    /// The journal's trust anchors, for every submission's signed records.
    #[arg(long, value_name = "FILE")]
    pub(crate) trust_store: Option<PathBuf>,
    /// Accept trust stores a submission holds (the authors' own keys) as trust anchors.
    #[arg(long)]
    pub(crate) accept_self_declared_keys: bool,
    #[command(flatten)]
    pub(crate) limits: LimitArgs,
}

/// `crossverify batch FOLDER --output-jsonl FILE [--certificates DIR] [--resume]`.
pub(crate) fn batch(
    folder: &Path,
    out: &Path,
    certificates: Option<&Path>,
    resume: bool,
    journal: &QueueArgs,
    quiet: bool,
    ctx: Ctx<'_>,
) -> anyhow::Result<u8> {
    let queue =
        submission::batch::queue(folder).with_context(|| format!("reading the queue folder {}", folder.display()))?;
    let existing = existing_output(out)?;
    let (lines, whole) = submission::batch::done(&existing);
    anyhow::ensure!(
        resume || existing.is_empty(),
        "{}: is not empty ({} results in it); add --resume to keep those whose submission is unchanged (taken from the \
         file, not verified again), or give a new output file to verify every submission",
        out.display(),
        lines.len()
    );
    if let Some(d) = certificates {
        std::fs::create_dir_all(d).with_context(|| format!("--certificates {}", d.display()))?;
    }
    let latest: std::collections::BTreeMap<&str, &submission::batch::Done> =
        lines.iter().map(|l| (l.id.as_str(), l)).collect();
    let mut file = append_output(out, whole)?;
    let at = verified_at(&Args::default())?;
    let args = Args {
        accept_self_declared_keys: journal.accept_self_declared_keys,
        limits: journal.limits,
        ..Args::default()
    };
    let stamp = submission::batch::stamp(
        journal.trust_store.as_deref(),
        journal.accept_self_declared_keys,
        journal.limits.limits(),
    );
    let (mut codes, mut kept) = (Vec::new(), 0);
    for (id, path) in queue {
        ctx.check()?;
        let fingerprint = submission::batch::fingerprint(&path);
        if let Some(l) =
            latest.get(id.as_str()).filter(|l| submission::batch::still_stands(l, fingerprint.as_deref(), &stamp))
        {
            codes.push(l.code);
            kept += 1;
            continue;
        }
        let result = run(std::slice::from_ref(&path), journal.trust_store.as_deref(), &args, &at, ctx).map(|mut r| {
            r.tool.commit = crossverify::report::BUILD_COMMIT.map(str::to_owned);
            crossverify::protocols::describe(&mut r);
            r
        });
        let cert = match (&result, certificates) {
            (Ok(r), Some(d)) => {
                let p = d.join(format!("{id}.html"));
                let bytes = submission::certificate::render(r);
                std::fs::write(&p, &bytes).with_context(|| format!("writing {}", p.display()))?;
                Some((p.display().to_string(), submission::sha256_of(&p).unwrap_or_default()))
            }
            _ => None,
        };
        let err = result.as_ref().err().map(|e| format!("{e:#}"));
        let shown = result.as_ref().map_err(|_| err.as_deref().unwrap_or_default());
        codes.push(result.as_ref().map_or(2, Report::exit_code));
        let mut line = submission::batch::line(
            &id,
            fingerprint.as_deref(),
            &stamp,
            shown,
            cert.as_ref().map(|(p, d)| (p.as_str(), d.as_str())),
        );
        line.push('\n');
        file.write_all(line.as_bytes())
            .and_then(|()| file.sync_data())
            .with_context(|| format!("writing {}", out.display()))?;
    }
    if resume && !quiet {
        let _ = writeln!(std::io::stderr(), "crossverify: batch: {kept} submissions taken from {}", out.display());
    }
    Ok(submission::batch::exit_code(codes))
}

/// The bytes already in a batch output (none when it does not exist yet).
pub(crate) fn existing_output(out: &Path) -> anyhow::Result<Vec<u8>> {
    // Lines are appended and the file cut to its whole lines: never through a link to a file
    // that is not the output's own.
    if std::fs::symlink_metadata(out).is_ok_and(|m| m.file_type().is_symlink()) {
        anyhow::bail!("{}: a symlink; give the output file itself, or a new path", out.display());
    }
    match std::fs::read(out) {
        Ok(b) => Ok(b),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(e).with_context(|| format!("reading {}", out.display())),
    }
}

/// A batch output opened for appending, cut to its `whole` lines (a line torn by a killed run
/// is cut off, and its entry verified again).
pub(crate) fn append_output(out: &Path, whole: usize) -> anyhow::Result<std::fs::File> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(out)
        .with_context(|| format!("opening {}", out.display()))?;
    file.set_len(whole as u64).with_context(|| format!("truncating {}", out.display()))?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_utc_seconds() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_796_234_400), "2026-12-02T18:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert!(parse_time("2026-12-02T18:00:00Z").is_ok());
        for bad in ["2026-12-02 18:00:00Z", "2026-12-02T18:00:00+01:00", "yesterday", ""] {
            assert!(parse_time(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_recorded_invocation_names_the_time_and_no_output() {
        let after = After { certificate: None, vsa: None, verified_at: "2026-12-02T18:00:00Z".into() };
        let inv = ["verify", "s.zip", "--certificate", "c.html", "--vsa=v.json"].map(String::from).to_vec();
        assert_eq!(after.recorded(inv), ["verify", "s.zip", "--verified-at", "2026-12-02T18:00:00Z"]);
        let given = ["verify", "s.zip", "--verified-at", "2025-01-01T00:00:00Z"].map(String::from).to_vec();
        assert_eq!(after.recorded(given.clone()), given);
    }
}
