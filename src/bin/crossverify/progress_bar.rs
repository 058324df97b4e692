use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crossverify::progress::Progress;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

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
        let style = if total > 0 {
            "{msg} [{bar:30}] {pos}/{len} · {per_sec} · {elapsed}"
        } else {
            "{msg} {spinner} {pos} · {per_sec} · {elapsed}"
        };
        b.set_style(ProgressStyle::with_template(style).expect("the templates above are valid").progress_chars("=> "));
        b.set_length(total);
        b.set_position(0);
        b.set_message(phase);
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
