//! The model of one cycle that every check reads: the context and stages of a cycle's
//! verification, the facts it hands on and the result helpers. It imports the records and the
//! loader, never a check.

mod cycle;
mod results;

pub(crate) use cycle::{
    Binding, Bound, Ctx, CycleFacts, DclRun, GroupInfo, ModelFinding, Parsed, Scratch, dcl_run, facts_sha,
};
pub(crate) use results::{at, outcome, res, short};
