//! Crash safety of the persistent cache (issue 14, docs/scale.md): a writer process killed
//! with SIGKILL at varied points — between its transactions and inside `Cache::flush` — leaves
//! a database that opens without being set aside, drops no entry, holds every batch the writer
//! reported committed, and holds the batch that was in flight wholly or not at all.
//!
//! The writer is this test binary run again with a filter naming `writer_child_entry_point`
//! and [`WRITER`] set: a real process, so the kill is the kernel's and not a simulated panic.
#![cfg(unix)]

use std::collections::BTreeSet;
use std::io::{BufRead as _, BufReader, Write as _};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use crossverify::cache::{self, Cache, Key};

/// The cache directory the writer child writes into; unset, the entry point does nothing.
const WRITER: &str = "CROSSVERIFY_CRASH_WRITER";
/// The writer's first batch number: batches of different writers never share a key.
const FROM: &str = "CROSSVERIFY_CRASH_FROM";
/// Entries per batch (one `flush`, one transaction).
const BATCH: u32 = 2_000;
/// A writer stops by itself after this many batches, so a parent that died before killing it
/// leaves no process filling the disk.
const MAX_BATCHES: u32 = 60;
/// Lines the writer prints start with this, so libtest's own lines are told apart.
const TAG: &str = "crash-writer:";
const WAIT: Duration = Duration::from_secs(60);

fn key() -> Key {
    Key::derive(b"crossverify crash-safety test key")
}

fn table_key(batch: u32, i: u32) -> Vec<u8> {
    format!("crash/{batch:07}/{i:05}").into_bytes()
}

/// 100 to 499 bytes that the parent recomputes from `(batch, i)` alone.
fn payload(batch: u32, i: u32) -> Vec<u8> {
    let len = 100 + (batch.wrapping_mul(7919) ^ i.wrapping_mul(104_729)) % 400;
    let mut x = u64::from(batch) << 32 | u64::from(i) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x.to_le_bytes()[0]
        })
        .collect()
}

fn say(line: &str) {
    let mut o = std::io::stdout().lock();
    let _ = writeln!(o, "{TAG} {line}");
    let _ = o.flush();
}

/// The writer child's body; a no-op in an ordinary test run (no [`WRITER`] in the environment).
#[test]
fn writer_child_entry_point() {
    let Some(dir) = std::env::var_os(WRITER) else { return };
    let from: u32 = std::env::var(FROM).ok().and_then(|v| v.parse().ok()).unwrap_or(0);
    // The run that creates the database says where it is (once); any other note is a failure.
    let creates = !Path::new(&dir).join("cache.redb").exists();
    let c = Cache::open(Path::new(&dir), key()).expect("the writer opens the cache");
    for (n, batch) in (from..from + MAX_BATCHES).enumerate() {
        for i in 0..BATCH {
            c.put(&table_key(batch, i), &payload(batch, i));
        }
        say(&format!("begin {batch}"));
        c.flush();
        let s = c.stats();
        let skip =
            usize::from(creates && s.notes.first().is_some_and(|n| n.starts_with("keeping authenticated results")));
        if s.notes.len() > skip || s.written != (n as u64 + 1) * u64::from(BATCH) {
            say(&format!("error batch {batch}: written {}, notes {:?}", s.written, s.notes));
            return;
        }
        say(&format!("committed {batch}"));
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Event {
    Begin(u32),
    Committed(u32),
}

/// A running writer child; killed when dropped, so a failing parent leaves no process behind.
struct Writer {
    child: Child,
    events: Receiver<(Instant, Result<Event, String>)>,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl Writer {
    fn start(dir: &Path, from: u32) -> Writer {
        let mut child = Command::new(std::env::current_exe().expect("the test binary's path"))
            .args(["cache_crash::writer_child_entry_point", "--exact", "--nocapture", "--test-threads=1"])
            .env(WRITER, dir)
            .env(FROM, from.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the writer child starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, events) = channel();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let Some(at) = line.find(TAG) else { continue };
                let words: Vec<&str> = line[at + TAG.len()..].split_whitespace().collect();
                let event = match words.as_slice() {
                    ["begin", b] => b.parse().map(Event::Begin).map_err(|_| line.clone()),
                    ["committed", b] => b.parse().map(Event::Committed).map_err(|_| line.clone()),
                    _ => Err(line.clone()),
                };
                if tx.send((Instant::now(), event)).is_err() {
                    break;
                }
            }
        });
        Writer { child, events, reader: Some(reader) }
    }

    /// The next event; panics on the writer's own error line or when it says nothing for a minute.
    fn next(&self) -> (Instant, Event) {
        let (at, e) = self.events.recv_timeout(WAIT).expect("the writer child reports within a minute");
        (at, e.unwrap_or_else(|line| panic!("the writer child failed: {line}")))
    }

    /// SIGKILL (what `Child::kill` sends on Unix), then every line the writer printed before it.
    fn kill(mut self) -> Vec<Event> {
        self.child.kill().expect("SIGKILL the writer");
        self.child.wait().expect("reap the writer");
        self.drain()
    }

    fn drain(&mut self) -> Vec<Event> {
        if let Some(r) = self.reader.take() {
            r.join().expect("the reader thread ends at the writer's EOF");
        }
        self.events
            .try_iter()
            .map(|(_, e)| e.unwrap_or_else(|line| panic!("the writer child failed: {line}")))
            .collect()
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What the database must hold: every batch a writer reported committed (or that was found
/// wholly present after a kill), and how the kills landed.
#[derive(Default)]
struct Expect {
    committed: BTreeSet<u32>,
    kills: u32,
    inside_flush: u32,
    in_flight_landed: u32,
    entries_checked: u64,
}

impl Expect {
    fn add(&mut self, other: &Expect) {
        self.committed.extend(&other.committed);
        self.kills += other.kills;
        self.inside_flush += other.inside_flush;
        self.in_flight_landed += other.in_flight_landed;
        self.entries_checked += other.entries_checked;
    }

    /// Folds one killed writer's events (those seen while it ran, then those drained after the
    /// kill). Returns the batch it had begun and not reported committed, if any: the kill landed
    /// inside its `flush`.
    fn absorb(&mut self, events: &[Event]) -> Option<u32> {
        let mut in_flight = None;
        for e in events {
            match *e {
                Event::Begin(b) => in_flight = Some(b),
                Event::Committed(b) => {
                    assert_eq!(in_flight, Some(b), "the writer commits the batch it began");
                    self.committed.insert(b);
                    in_flight = None;
                }
            }
        }
        self.kills += 1;
        self.inside_flush += u32::from(in_flight.is_some());
        in_flight
    }
}

/// Reopens the cache as a new run would and checks it against `expect`; `in_flight` are the
/// batches the kills interrupted inside `flush`.
fn check(dir: &Path, expect: &mut Expect, in_flight: &[u32], when: &str) {
    let c = Cache::open(dir, key()).expect("reopen the cache");
    let notes = c.stats().notes;
    assert!(notes.is_empty(), "{when}: the killed writer's database was set aside or unusable: {notes:?}");
    for &b in &expect.committed {
        for i in 0..BATCH {
            let got = c.get(&table_key(b, i));
            assert!(
                got.as_deref() == Some(payload(b, i).as_slice()),
                "{when}: batch {b} was reported committed, but entry {i} is {}",
                if got.is_some() { "not the value written" } else { "missing (lost)" }
            );
        }
        expect.entries_checked += u64::from(BATCH);
    }
    for &b in in_flight {
        let present: Vec<bool> = (0..BATCH)
            .map(|i| {
                let got = c.get(&table_key(b, i));
                assert!(
                    got.is_none() || got.as_deref() == Some(payload(b, i).as_slice()),
                    "{when}: entry {i} of the in-flight batch {b} holds a value never written"
                );
                got.is_some()
            })
            .collect();
        let n = present.iter().filter(|p| **p).count();
        assert!(
            n == 0 || n == BATCH as usize,
            "{when}: the in-flight batch {b} is torn: {n} of {BATCH} entries present (all or none expected)"
        );
        expect.entries_checked += u64::from(BATCH);
        if n > 0 {
            // It landed: from now on it is committed data like any other, and must stay.
            expect.in_flight_landed += 1;
            expect.committed.insert(b);
        }
    }
    let s = c.stats();
    assert_eq!(s.dropped, 0, "{when}: entries dropped for a bad MAC or malformed bytes");
    assert_eq!(s.stale, 0, "{when}: entries read back as another version's");
    assert!(s.notes.is_empty(), "{when}: {:?}", s.notes);
    let rows = row_count(dir);
    let want = expect.committed.len() as u64 * u64::from(BATCH);
    assert_eq!(rows, want, "{when}: the table holds entries of no committed batch (or lost some)");
}

fn row_count(dir: &Path) -> u64 {
    let table: redb::TableDefinition<'_, &[u8], &[u8]> = redb::TableDefinition::new("entries");
    let db = redb::Database::open(dir.join(cache::FILE)).expect("open the database");
    let tx = redb::ReadableDatabase::begin_read(&db).expect("read transaction");
    match tx.open_table(table) {
        Ok(t) => redb::ReadableTableMetadata::len(&t).expect("row count"),
        Err(redb::TableError::TableDoesNotExist(_)) => 0,
        Err(e) => panic!("entries table: {e}"),
    }
}

fn report(what: &str, e: &Expect) {
    let _ = writeln!(
        std::io::stderr(),
        "{what}: {} kills, {} inside flush (batch begun, not reported committed), {} of those landed whole; \
         {} batches committed; {} entries checked",
        e.kills,
        e.inside_flush,
        e.in_flight_landed,
        e.committed.len(),
        e.entries_checked
    );
}

#[test]
fn a_writer_killed_at_any_point_loses_no_committed_entry_and_tears_no_batch() {
    // 4 databases of 5 kills each: kills pile up on one file, and it stays small enough that
    // a flush (which opens and checks every page) takes tens of milliseconds in a debug build.
    const KILLS: u32 = 20;
    const PER_DATABASE: u32 = 5;
    let mut total = Expect::default();
    for group in 0..KILLS / PER_DATABASE {
        let tmp = tempfile::tempdir().expect("tempdir");
        let mut expect = Expect::default();
        // How long a flush takes here, as the parent sees it.
        let mut flush_time = Duration::ZERO;
        let mut next_batch = group * 1_000;
        for k in 0..PER_DATABASE {
            let kill = group * PER_DATABASE + k;
            // Even kills: right after a commit is reported (the writer is putting the next batch
            // or opening the database). Odd kills: 0–100% of a flush's time after a batch began.
            let (trigger, delay) = if kill.is_multiple_of(2) {
                (Trigger::Committed, Duration::from_micros(u64::from(kill) * 500))
            } else {
                (Trigger::Begin, flush_time.mul_f64(f64::from((kill * 7) % KILLS) / f64::from(KILLS)))
            };
            let w = Writer::start(tmp.path(), next_batch);
            let mut seen = Vec::new();
            wait_for(&w, &mut seen, 1 + kill % 3, trigger, &mut flush_time);
            std::thread::sleep(delay);
            seen.extend(w.kill());
            let in_flight = expect.absorb(&seen);
            next_batch = after(&seen, next_batch);
            check(tmp.path(), &mut expect, in_flight.as_slice(), &format!("kill {kill}, {delay:?} after {trigger:?}"));
        }
        total.add(&expect);
    }
    report("one writer", &total);
    assert!(total.inside_flush > 0, "no kill landed inside a flush: the test did not test a torn write");
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Trigger {
    /// The writer reported its last wanted commit.
    Committed,
    /// The writer began the batch after its last wanted commit.
    Begin,
}

/// Reads `w`'s events until it has reported `commits` commits (and, for [`Trigger::Begin`],
/// begun the next batch); keeps the longest begin-to-commit time seen in `flush_time`.
fn wait_for(w: &Writer, seen: &mut Vec<Event>, commits: u32, trigger: Trigger, flush_time: &mut Duration) {
    let mut began = None;
    let mut done = 0;
    loop {
        let (at, e) = w.next();
        seen.push(e);
        match e {
            Event::Begin(_) if done == commits => return,
            Event::Begin(_) => began = Some(at),
            Event::Committed(_) => {
                done += 1;
                if let Some(b) = began.take() {
                    *flush_time = (*flush_time).max(at - b);
                }
                if done == commits && trigger == Trigger::Committed {
                    return;
                }
            }
        }
    }
}

/// The first batch number a writer started after these events may use.
fn after(seen: &[Event], otherwise: u32) -> u32 {
    seen.iter()
        .map(|e| match e {
            Event::Begin(b) | Event::Committed(b) => b + 1,
        })
        .max()
        .unwrap_or(otherwise)
}

#[test]
fn two_writers_killed_at_once_lose_no_committed_entry_and_tear_no_batch() {
    const ROUNDS: u32 = 3;
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path();
    let mut expect = Expect::default();
    let mut next = [0u32, 1_000_000];
    for round in 0..ROUNDS {
        let ws = [Writer::start(dir, next[0]), Writer::start(dir, next[1])];
        let mut seen = [Vec::new(), Vec::new()];
        // Both have committed twice; then kill both as soon as either begins another batch.
        'wait: loop {
            for (w, seen) in ws.iter().zip(&mut seen) {
                let (_, e) = w.next();
                seen.push(e);
                let commits = |s: &Vec<Event>| s.iter().filter(|e| matches!(e, Event::Committed(_))).count();
                if matches!(e, Event::Begin(_)) && commits(seen) >= 2 {
                    break 'wait;
                }
            }
        }
        std::thread::sleep(Duration::from_millis(u64::from(round) * 3));
        let [a, b] = ws;
        let (ea, eb) = std::thread::scope(|s| {
            let ha = s.spawn(|| a.kill());
            let hb = s.spawn(|| b.kill());
            (ha.join().expect("kill a"), hb.join().expect("kill b"))
        });
        let mut in_flight = Vec::new();
        for (k, (mut seen, rest)) in seen.into_iter().zip([ea, eb]).enumerate() {
            seen.extend(rest);
            in_flight.extend(expect.absorb(&seen));
            next[k] = after(&seen, next[k]);
        }
        check(dir, &mut expect, &in_flight, &format!("two writers, round {round}"));
    }
    report("two writers", &expect);
}
