//! What is replayed across cycles once every cycle is verified: the controller's walk over each
//! cycle's receipts (`controller.rs`: I5 rounds, the parent chain, the precedence replay, and
//! I8's admission records) and the checks that compare receipts with each other (`rounds.rs`).

pub(crate) mod controller;
pub(crate) mod rounds;
