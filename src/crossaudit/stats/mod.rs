//! CrossAudit's side of `crossverify stats`: its inputs (deployed ledgers, receipt ledgers,
//! mined and analysis records) converted into the neutral records, with the figure groups
//! each input can measure declared in its kind ([`input::kind`]), and the rule-citation
//! patterns of its mining scripts ([`rules`]).

pub mod input;
pub mod rules;
