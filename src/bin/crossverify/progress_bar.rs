use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crossverify::progress::Progress;
use indicatif::{HumanDuration, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

/// indicatif on stderr, drawn only when stderr is a terminal and `--quiet` is off.
pub(crate) struct Bar {
    bar: Option<Mutex<ProgressBar>>,
    bytes: AtomicU64,
    phase: Mutex<&'static str>,
}

impl Bar {
    pub(crate) fn new(enabled: bool) -> Self {
        Bar {
            bar: enabled.then(|| Mutex::new(ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()))),
            bytes: AtomicU64::new(0),
            phase: Mutex::new(""),
        }
    }

    pub(crate) fn clear(&self) {
        if let Some(b) = &self.bar {
            b.lock().expect("progress lock is never poisoned").finish_and_clear();
        }
    }
}

impl Progress for Bar {
    fn start(&self, phase: &'static str, total: u64) {
        let Some(b) = &self.bar else { return };
        let b = b.lock().expect("progress lock is never poisoned");
        // The label goes in before anything that can draw, so no frame shows a bare bar.
        b.set_message(phase);
        let style = if total > 0 {
            "{msg} [{bar:30}] {pos}/{len} · {rate} · {elapsed} · {eta_left}"
        } else {
            "{msg} {spinner} {pos} · {rate} · {elapsed}"
        };
        b.set_style(
            ProgressStyle::with_template(style)
                .expect("the templates above are valid")
                .with_key("rate", |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = w.write_str(&rate_text(s.per_sec()));
                })
                .with_key("eta_left", |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = w.write_str(&eta_text(s.pos(), s.len(), s.eta()));
                })
                .progress_chars("=> "),
        );
        b.set_length(total);
        b.set_position(0);
        self.bytes.store(0, Ordering::Relaxed);
        *self.phase.lock().expect("progress lock is never poisoned") = phase;
        b.enable_steady_tick(Duration::from_millis(120));
    }

    fn advance(&self, n: u64) {
        if let Some(b) = &self.bar {
            b.lock().expect("progress lock is never poisoned").inc(n);
        }
    }

    fn bytes(&self, n: u64) {
        let Some(b) = &self.bar else { return };
        let total = self.bytes.fetch_add(n, Ordering::Relaxed) + n;
        let phase = *self.phase.lock().expect("progress lock is never poisoned");
        let b = b.lock().expect("progress lock is never poisoned");
        let secs = b.elapsed().as_secs_f64().max(1e-3);
        #[allow(clippy::cast_precision_loss)]
        let mib = total as f64 / f64::from(1u32 << 20);
        b.set_message(format!("{phase} ({mib:.0} MiB, {:.0} MiB/s)", mib / secs));
    }

    fn finish(&self) {
        if let Some(b) = &self.bar {
            b.lock().expect("progress lock is never poisoned").disable_steady_tick();
        }
    }
}

/// Items per second, rounded to what a reader can take in at a glance (`12/s`, `3.5/s`).
fn rate_text(per_sec: f64) -> String {
    if !per_sec.is_finite() || per_sec <= 0.0 {
        "–/s".to_owned()
    } else if per_sec < 10.0 {
        format!("{per_sec:.1}/s")
    } else {
        format!("{per_sec:.0}/s")
    }
}

/// "ETA 3 minutes" once something has been done (before that there is nothing to estimate
/// from), "ETA –" until then.
fn eta_text(pos: u64, len: Option<u64>, eta: Duration) -> String {
    match len {
        Some(l) if pos > 0 && pos < l => format!("ETA {}", HumanDuration(eta)),
        Some(l) if pos >= l && l > 0 => "done".to_owned(),
        _ => "ETA –".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_are_rounded_and_eta_waits_for_data() {
        assert_eq!(rate_text(1234.5678), "1235/s");
        assert_eq!(rate_text(3.456), "3.5/s");
        assert_eq!(rate_text(0.0), "–/s");
        assert_eq!(rate_text(f64::NAN), "–/s");
        assert_eq!(eta_text(0, Some(10), Duration::from_secs(5)), "ETA –");
        assert_eq!(eta_text(5, Some(10), Duration::from_secs(125)), "ETA 2 minutes");
        assert_eq!(eta_text(10, Some(10), Duration::ZERO), "done");
    }
}
