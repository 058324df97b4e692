//! Seats and phases as the bus names them: a seat's name, and the phase notes that open,
//! reveal and close the debate (format note §2.3). Kept apart from the bus reader, which
//! re-exports them, so that each file stays one job.

/// The seat-name rule the CLI enforces since 0.5.1: `^[A-Za-z0-9._-]{1,64}$`, not `.`/`..`.
#[must_use]
pub(crate) fn valid_seat(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
        && name != "."
        && name != ".."
}

/// A phase note as the tool writes it (§2.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PhaseNote {
    /// The phase it moves to.
    pub phase: Phase,
    /// The reveal count of `phase -> debate (N sealed claim(s) revealed)`.
    pub revealed: Option<u64>,
}

/// The three phases.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Phase {
    /// Blind answers.
    Blind,
    /// Cross-examination.
    Debate,
    /// Over.
    Closed,
}

impl Phase {
    /// The word the tool writes.
    #[must_use]
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Phase::Blind => "blind",
            Phase::Debate => "debate",
            Phase::Closed => "closed",
        }
    }

    /// Reads the word the tool writes.
    #[must_use]
    pub(crate) fn parse(word: &str) -> Option<Phase> {
        match word {
            "blind" => Some(Phase::Blind),
            "debate" => Some(Phase::Debate),
            "closed" => Some(Phase::Closed),
            _ => None,
        }
    }
}

/// The reading of an info `msg` that starts with `phase -> `: `Ok` for a note the tool
/// writes, `Err` for one it cannot write, `None` when `msg` is no phase note at all.
#[must_use]
pub(crate) fn phase_note(msg: &str) -> Option<Result<PhaseNote, String>> {
    let rest = msg.strip_prefix("phase -> ")?;
    if let Some(p) = Phase::parse(rest) {
        return Some(Ok(PhaseNote { phase: p, revealed: None }));
    }
    let Some((word, suffix)) = rest.split_once(' ') else {
        return Some(Err(format!("{rest:?} is not a phase")));
    };
    let Some(phase) = Phase::parse(word) else { return Some(Err(format!("{word:?} is not a phase"))) };
    let count = suffix.strip_prefix('(').and_then(|s| s.strip_suffix(" sealed claim(s) revealed)"));
    let n = count
        .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()) && (d.len() == 1 || !d.starts_with('0')))
        .and_then(|d| d.parse::<u64>().ok());
    match (phase, n) {
        (Phase::Debate, Some(n)) if n >= 1 => Some(Ok(PhaseNote { phase, revealed: Some(n) })),
        (Phase::Debate, Some(_)) => Some(Err("a reveal count of 0 (the tool writes no suffix then)".into())),
        (_, Some(_)) => {
            Some(Err(format!("a reveal suffix on a {word} note (only 0.5.0 wrote one; 0.5.1+ only on debate)")))
        }
        (_, None) => Some(Err(format!("unknown suffix {suffix:?}"))),
    }
}
