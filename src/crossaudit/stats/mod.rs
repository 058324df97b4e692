//! CrossAudit's side of `crossverify stats`, its statistics adapter: its inputs (deployed
//! ledgers, receipt ledgers, mined and analysis records) converted into the neutral records
//! ([`input`], [`receipts`]), with what each input can measure, its decisions, its
//! `CYCLE-NNNNNN` numbering and the words its views use declared in its kind
//! ([`kind`]); the files the mining and analysis scripts publish and the form each is
//! checked in ([`published`]); and the scripts' patterns for rule citations and fix commits
//! ([`rules`]). It sits above the crawl (a receipt ledger is crawled and verified before it is
//! converted) and below the commands, which put its records into their reports.

pub mod input;
pub mod kind;
pub mod published;
pub mod receipts;
pub mod rules;
