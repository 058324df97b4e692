//! `crossverify completions SHELL` and `crossverify man`: shell completions and man pages made
//! from the same clap definition that parses the arguments, so they cannot fall behind it.
//! Hidden from `--help` (they are for packagers and shell setup, not verification), as ruff's
//! and uv's are; the packages ship them because the binary does.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use clap::Subcommand;

#[derive(Subcommand, Debug)]
pub(crate) enum Command {
    /// Print the completion script for SHELL on standard output.
    #[command(hide = true, after_help = help!(
        "crossverify completions bash > ~/.local/share/bash-completion/completions/crossverify",
        "crossverify completions zsh > \"${fpath[1]}/_crossverify\"",
        "crossverify completions fish > ~/.config/fish/completions/crossverify.fish"
    ))]
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) on standard output, or write one page per command to --dir.
    #[command(hide = true, after_help = help!(
        "crossverify man | man -l -",
        "crossverify man --dir /usr/local/share/man/man1"
    ))]
    Man {
        /// Write `crossverify.1` and a `crossverify-COMMAND.1` page for each command here
        /// (the directory must exist).
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

impl Command {
    /// Writes what was asked for; `cli` is the whole command-line definition. A signed report or
    /// `--output` is refused: there is no report, and a run that exits 0 must not leave the
    /// caller believing one was written.
    pub(crate) fn run(&self, mut cli: clap::Command, report_wanted: bool) -> anyhow::Result<u8> {
        if report_wanted {
            bail!("--output and --sign-report: `completions` and `man` write no report");
        }
        match self {
            Command::Completions { shell } => {
                let mut out = Vec::new();
                clap_complete::generate(*shell, &mut cli, "crossverify", &mut out);
                write_stdout(&out)?;
            }
            Command::Man { dir: None } => {
                let mut out = Vec::new();
                clap_mangen::Man::new(cli).render(&mut out).context("rendering the man page")?;
                write_stdout(&out)?;
            }
            Command::Man { dir: Some(dir) } => write_pages(cli, dir)?,
        }
        Ok(0)
    }
}

fn write_pages(cli: clap::Command, dir: &Path) -> anyhow::Result<()> {
    if !dir.is_dir() {
        bail!("--dir {}: not a directory", dir.display());
    }
    clap_mangen::generate_to(cli, dir).with_context(|| format!("writing man pages to {}", dir.display()))
}

fn write_stdout(bytes: &[u8]) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.context("writing to standard output"),
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory as _;

    use super::*;

    fn text(bytes: Vec<u8>) -> String {
        String::from_utf8(bytes).expect("UTF-8")
    }

    #[test]
    fn every_shell_completes_the_subcommands_and_options() {
        for shell in [
            clap_complete::Shell::Bash,
            clap_complete::Shell::Zsh,
            clap_complete::Shell::Fish,
            clap_complete::Shell::Elvish,
            clap_complete::Shell::PowerShell,
        ] {
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut crate::Cli::command(), "crossverify", &mut out);
            let script = text(out);
            for word in ["demo", "ledger", "receipt", "verify", "trust-store", "science-rev"] {
                assert!(script.contains(word), "{shell}: the completion script lacks {word}");
            }
        }
    }

    #[test]
    fn the_man_pages_name_every_command() {
        let mut out = Vec::new();
        clap_mangen::Man::new(crate::Cli::command()).render(&mut out).expect("render");
        let page = text(out);
        assert!(page.starts_with(".ie") && page.contains(".TH crossverify 1"), "{page}");
        assert!(page.contains("crossverify\\-ledger(1)") && page.contains("Exit codes"), "{page}");
        // Hidden from --help, so from the page too.
        assert!(!page.contains("completions"), "{page}");

        let dir = tempfile::tempdir().expect("tempdir");
        write_pages(crate::Cli::command(), dir.path()).expect("pages");
        let ledger = std::fs::read_to_string(dir.path().join("crossverify-ledger.1")).expect("the ledger page");
        assert!(ledger.contains("\\-\\-audit"), "{ledger}");
        assert!(write_pages(crate::Cli::command(), &dir.path().join("missing")).is_err());
    }

    #[test]
    fn a_report_asked_of_them_is_refused() {
        let man = Command::Man { dir: None };
        let err = man.run(crate::Cli::command(), true).expect_err("refused");
        assert!(err.to_string().contains("write no report"), "{err}");
    }
}
